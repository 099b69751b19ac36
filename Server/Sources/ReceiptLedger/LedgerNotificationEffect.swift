import Foundation
import ReceiptParser

/// What a verified App Store Server Notification means to the ledger, decided from its type alone:
/// its transaction is seen (a purchase the app never reported becomes a missed order); REFUND and
/// REVOKE revoke it; REFUND_REVERSED clears that revocation. `Ledger.apply(notification:transaction:renewalInfo:)`
/// carries it out, only while the notification's transaction is the latest snapshot of it.
public struct LedgerNotificationEffect: Sendable, Hashable {
    /// What happens to the transaction beyond being recorded as seen.
    public enum Action: Sendable, Hashable {
        /// Recorded as signed, with the revocation the transaction itself carries, if any.
        case recordSeen
        /// REFUND or REVOKE: revoked at `date`, for `reason`.
        case revoke(at: Date, reason: String)
        /// REFUND_REVERSED: Apple took the refund back, so the credit is no longer to claw back, or
        /// may now be made.
        case clearRevocation
    }

    /// The notification's transaction, as recorded as seen.
    public var transaction: LedgerTransaction
    public var action: Action

    /// The effect of `notification`, whose `data.signedTransactionInfo` is `signed`; nil when that
    /// transaction has no id (nothing to key a record on). A revocation is dated by the transaction's
    /// revocationDate, else the notification's signedDate, else `receivedAt`.
    public init?(notification: ServerNotification, transaction signed: SignedTransaction, receivedAt: Date) {
        guard var transaction = LedgerTransaction(signedTransaction: signed) else { return nil }
        switch notification.notificationType {
        case .refund?, .revoke?:
            let type = notification.notificationType?.rawValue ?? ""
            // The notification's type and reason are the ones to keep, not the converter's generic words.
            action = .revoke(at: signed.revocationDate ?? notification.signedDate ?? receivedAt,
                             reason: type + (signed.revocationReason.map { " (revocationReason \($0))" } ?? ""))
            transaction.revocationDate = nil
            transaction.revocationReason = nil
        case .refundReversed?:
            action = .clearRevocation
            transaction.revocationDate = nil
            transaction.revocationReason = nil
        default:
            action = .recordSeen
        }
        self.transaction = transaction
    }
}
