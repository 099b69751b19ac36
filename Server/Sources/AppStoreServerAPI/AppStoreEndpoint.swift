/// The App Store Server API's calls this client makes, with the request budget Apple publishes
/// for each in production (requests per second, per app; sandbox gets a tenth by default).
public enum AppStoreEndpoint: String, Sendable, CaseIterable, Hashable {
    case transactionInfo = "Get Transaction Info"
    case transactionHistory = "Get Transaction History"
    case subscriptionStatuses = "Get All Subscription Statuses"
    case refundHistory = "Get Refund History"
    case orderLookup = "Look Up Order ID"
    case notificationHistory = "Get Notification History"
    case requestTestNotification = "Request a Test Notification"
    case testNotificationStatus = "Get Test Notification Status"
    case appTransactionInfo = "Get App Transaction Info"
    case consumptionInformation = "Send Consumption Information"
    case extendRenewalDate = "Extend a Subscription Renewal Date"
    case massExtendRenewalDate = "Extend Subscription Renewal Dates for All Active Subscribers"
    case massExtensionStatus = "Get Status of Subscription Renewal Date Extensions"
    case setAppAccountToken = "Set App Account Token"

    /// Apple's published production rate, requests per second.
    public var productionRequestsPerSecond: Int {
        switch self {
        case .transactionInfo, .transactionHistory, .subscriptionStatuses, .notificationHistory,
             .appTransactionInfo, .consumptionInformation: 50
        case .refundHistory, .orderLookup: 10
        case .extendRenewalDate, .setAppAccountToken: 20
        case .requestTestNotification, .testNotificationStatus, .massExtendRenewalDate, .massExtensionStatus: 1
        }
    }

    /// The budget used when none is configured: Apple's production rate, a tenth of it in sandbox.
    public func defaultRate(inSandbox: Bool) -> RequestRate {
        RequestRate(perSecond: Double(productionRequestsPerSecond) * (inSandbox ? 0.1 : 1))
    }
}

/// A request budget: at most `requests` requests leave in any `interval` seconds.
public struct RequestRate: Sendable, Hashable, CustomStringConvertible {
    public var requests: Int
    public var interval: Double

    public init(requests: Int, interval: Double) {
        precondition(requests > 0 && interval > 0, "a request budget allows at least one request in a positive interval")
        self.requests = requests
        self.interval = interval
    }

    /// `perSecond` requests a second, as a budget of whole requests: rates under one a second
    /// become one request per `1 / perSecond` seconds.
    public init(perSecond: Double) {
        self = perSecond >= 1 ? RequestRate(requests: Int(perSecond), interval: 1) : RequestRate(requests: 1, interval: 1 / perSecond)
    }

    public var description: String {
        interval == 1 ? "\(requests)/s" : "\(requests) per \(interval.secondsText) s"
    }
}

extension Double {
    /// Seconds as people write them: no trailing zeros.
    var secondsText: String {
        self == rounded() ? String(Int64(self)) : String(self)
    }
}
