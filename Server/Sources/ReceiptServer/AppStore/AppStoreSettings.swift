import AppStoreServerAPI
import Foundation

/// receipt-server's App Store Server API set-up (`--app-store-*`, `--reconcile-*`,
/// `--set-app-account-tokens`): the client's configuration and what the server does with it.
public struct AppStoreSettings: Sendable {
    public var client: AppStoreServerAPIConfiguration
    /// Seconds between reconcile cycles; nil: only when `POST /v1/reconcile` asks.
    public var reconcileInterval: Double?
    /// Where the first cycle starts (24 hours back by default).
    public var reconcileSince: Date?
    /// Whether a credit of an original transaction without an appAccountToken sets the user's
    /// bound token on it at Apple.
    public var setsAppAccountTokens: Bool

    public init(client: AppStoreServerAPIConfiguration, reconcileInterval: Double? = nil, reconcileSince: Date? = nil,
                setsAppAccountTokens: Bool = false) {
        self.client = client
        self.reconcileInterval = reconcileInterval
        self.reconcileSince = reconcileSince
        self.setsAppAccountTokens = setsAppAccountTokens
    }
}
