import Foundation
import ReceiptLedger
import ReceiptParser

extension ServerLedger {
    /// What a verified notification tells the ledger: its transaction was seen (a purchase the app
    /// never reported becomes a missed order), and, for REFUND and REVOKE, revoked: at the
    /// transaction's revocationDate, else the notification's signed date, for the notification's
    /// type and the transaction's revocation reason; REFUND_REVERSED clears that revocation.
    func record(notification outcome: SignedDataOutcome) async throws(LedgerError) {
        guard outcome.refusal == nil, let notification = outcome.notification,
              let signed = outcome.notificationTransaction, var transaction = LedgerTransaction(signedTransaction: signed)
        else { return }
        let type = notification.notificationType
        if type == .refundReversed {
            // Apple took the refund back: the credit is no longer to claw back, or may now be made.
            transaction.revocationDate = nil
            try await ledger.record(seen: [transaction])
            try await ledger.clearRevocation(transactionId: transaction.transactionId)
            return
        }
        guard type == .refund || type == .revoke, let type else {
            try await ledger.record(seen: [transaction])
            return
        }
        // The notification's reason is the one to keep, not the converter's generic one.
        transaction.revocationDate = nil
        transaction.revocationReason = nil
        try await ledger.record(seen: [transaction])
        let reason = type.rawValue + (signed.revocationReason.map { " (revocationReason \($0))" } ?? "")
        try await ledger.markRevoked(transactionId: transaction.transactionId,
                                     at: signed.revocationDate ?? notification.signedDate ?? Date(), reason: reason)
    }
}
