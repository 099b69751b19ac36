import Foundation
import ReceiptParser

/// A verified App Store Server Notification as the ledger logs it, once per `notificationUUID`
/// however often Apple delivers it.
public struct LedgerNotification: Sendable, Hashable {
    public var notificationUUID: String
    public var notificationType: String?
    public var subtype: String?
    public var signedDate: Date?
    /// The original transaction id of the subscription it is about (its transaction's, else its
    /// renewal info's); nil for one about no purchase (TEST, a summary).
    public var originalTransactionId: String?
    public var transactionId: String?

    public init(notificationUUID: String, notificationType: String? = nil, subtype: String? = nil, signedDate: Date? = nil,
                originalTransactionId: String? = nil, transactionId: String? = nil) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.signedDate = signedDate
        self.originalTransactionId = originalTransactionId
        self.transactionId = transactionId
    }

    /// The log entry of `notification`, whose nested transaction and renewal info are given; nil
    /// without a `notificationUUID`, which is the only key a repeat can be recognised by.
    public init?(_ notification: ServerNotification, transaction: SignedTransaction?, renewalInfo: SignedRenewalInfo?) {
        guard let uuid = notification.notificationUUID, !uuid.isEmpty else { return nil }
        self.init(notificationUUID: uuid, notificationType: notification.notificationType?.rawValue,
                  subtype: notification.subtype?.rawValue, signedDate: notification.signedDate,
                  originalTransactionId: transaction?.subscriptionKey ?? renewalInfo?.originalTransactionId,
                  transactionId: transaction?.transactionId)
    }
}

/// A logged notification: how often it was delivered, when, and whether it was stale on arrival.
public struct LoggedNotification: Sendable, Hashable {
    public var notification: LedgerNotification
    /// How many times Apple delivered it (a retry, or a repeat of one answered already).
    public var deliveries: Int
    /// True when every snapshot it carried was older than what the ledger held when it first
    /// arrived: it changed nothing. One carrying no snapshot is never stale.
    public var stale: Bool
    public var firstReceivedAt: Date
    public var lastReceivedAt: Date

    public init(notification: LedgerNotification, deliveries: Int, stale: Bool, firstReceivedAt: Date, lastReceivedAt: Date) {
        self.notification = notification
        self.deliveries = deliveries
        self.stale = stale
        self.firstReceivedAt = firstReceivedAt
        self.lastReceivedAt = lastReceivedAt
    }
}
