import Foundation
import ReceiptParser

/// A change the ledger tells the app's backend about through webhooks, for one user: written to
/// the outbox in the same database transaction as the change itself.
public struct LedgerEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case entitlementChanged = "entitlement.changed"
        case creditCreated = "credit.created"
        case creditRevoked = "credit.revoked"
        case creditRestored = "credit.restored"
    }

    /// What made the change: a notification, or a credit request.
    public enum Cause: Sendable, Hashable {
        case notification(LedgerNotification)
        case credit(user: String, transactionIds: [String])
    }

    public var kind: Kind
    public var user: String
    /// The event's `data`, without `user` and `cause`, which every event carries.
    public var details: Details
    public var cause: Cause?

    public enum Details: Sendable, Hashable {
        /// A credit made, revoked or restored.
        case credit(transactionId: String, productId: String?, originalTransactionId: String?, revokedAt: Date?, revocationReason: String?)
        /// The status of a subscription the user owns, before (nil: they had none) and now.
        case entitlement(previousStatus: SubscriptionState.Status?, state: SubscriptionState)
    }

    /// `{"data":{…},"timestamp":T,"type":TYPE}`, the body posted (and signed) on every attempt.
    func body(at instant: Date) -> [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key("data")
        json.beginObject()
        switch details {
        case .credit(let transactionId, let productId, let original, let revokedAt, let reason):
            json.member("originalTransactionId", original)
            json.member("productId", productId)
            json.member("revocationReason", reason)
            json.member("revokedAt", milliseconds: revokedAt)
            json.member("transactionId", transactionId)
        case .entitlement(let previous, let state):
            json.member("entitled", state.entitled)
            if let expires = state.expiresDate {
                json.member("expiresDate", milliseconds: expires)
            } else {
                json.key("expiresDate")
                json.null()
            }
            json.member("originalTransactionId", state.originalTransactionId)
            json.key("previousStatus")
            if let previous { json.string(previous.rawValue) } else { json.null() }
            json.member("productId", state.productId)
            json.member("status", state.status.rawValue)
        }
        if let cause { Self.write(cause, to: &json) }
        json.member("user", user)
        json.endObject()
        json.member("timestamp", milliseconds: instant)
        json.member("type", kind.rawValue)
        json.endObject()
        return json.finish()
    }

    private static func write(_ cause: Cause, to json: inout JSONWriter) {
        json.key("cause")
        json.beginObject()
        switch cause {
        case .notification(let notification):
            json.member("notificationType", notification.notificationType)
            json.member("notificationUUID", notification.notificationUUID)
            json.member("subtype", notification.subtype)
        case .credit(let user, let ids):
            json.key("credit")
            json.beginObject()
            json.key("transactionIds")
            json.beginArray()
            for id in ids { json.string(id) }
            json.endArray()
            json.member("user", user)
            json.endObject()
        }
        json.endObject()
    }
}
