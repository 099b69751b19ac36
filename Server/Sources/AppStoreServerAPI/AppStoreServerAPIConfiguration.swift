#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// Everything an ``AppStoreServerAPIClient`` needs: whose key, which hosts, which trust, and
/// the limits that keep it within Apple's and its own.
public struct AppStoreServerAPIConfiguration: Sendable {
    /// Which of Apple's environments the client asks.
    public enum EnvironmentChoice: String, Sendable, CaseIterable {
        case production, sandbox
        /// Production first; sandbox when production answers that the transaction is not found
        /// (`TransactionIdNotFoundError`) or that the app is not yet released (401).
        case auto
    }

    /// Apple's hosts (recommended since 2026-05).
    public static let productionURL = "https://api.storekit.apple.com"
    public static let sandboxURL = "https://api.storekit-sandbox.apple.com"

    public var credentials: AppStoreCredentials
    public var environment: EnvironmentChoice
    /// Base URLs; paths `/inApps/…` are appended. Replace them for tests and proxies.
    public var productionURL: String
    public var sandboxURL: String
    /// The trust every signed value of an answer is judged by (anchor, policy); the client adds
    /// the expectations: the credentials' bundle id and the environment that answered.
    public var trust: SignedDataVerifier
    /// A request's deadline, connection to the answer's last byte (at most an hour is used).
    public var timeout: Double = 30
    /// How long one call may wait in all: budgets, `Retry-After`, backoff, every attempt and page.
    public var maxWait: Double = 120
    /// Answers larger than this are refused unread.
    public var maxAnswerBytes: Int = 8 << 20
    /// How many times a failed attempt (5xx, a retryable error code, no answer) is tried again.
    public var maxRetries: Int = 3
    /// The first backoff; each retry waits a random time up to twice the one before.
    public var backoff: Double = 0.5
    /// Per-endpoint budgets in production; Apple's published figures by default.
    public var productionBudgets: [AppStoreEndpoint: RequestRate]
    /// Per-endpoint budgets in sandbox; a tenth of production's by default.
    public var sandboxBudgets: [AppStoreEndpoint: RequestRate]

    public init(credentials: AppStoreCredentials, environment: EnvironmentChoice = .production,
                productionURL: String = Self.productionURL, sandboxURL: String = Self.sandboxURL,
                trust: SignedDataVerifier = SignedDataVerifier()) {
        self.credentials = credentials
        self.environment = environment
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.trust = trust
        productionBudgets = Self.defaultBudgets(inSandbox: false)
        sandboxBudgets = Self.defaultBudgets(inSandbox: true)
    }

    /// Every endpoint's default budget (``AppStoreEndpoint/defaultRate(inSandbox:)``).
    public static func defaultBudgets(inSandbox: Bool) -> [AppStoreEndpoint: RequestRate] {
        Dictionary(uniqueKeysWithValues: AppStoreEndpoint.allCases.map { ($0, $0.defaultRate(inSandbox: inSandbox)) })
    }
}
