import ReceiptLedger

extension Ledger {
    /// What a verified notification tells the ledger (`Ledger.apply(notification:transaction:)`
    /// decides it from the notification's type); a refused notification records nothing. The one
    /// path of `POST /v2/notifications` and of the reconciler.
    func record(notification outcome: SignedDataOutcome) async throws(LedgerError) {
        guard outcome.refusal == nil, let notification = outcome.notification else { return }
        try await apply(notification: notification, transaction: outcome.notificationTransaction,
                        renewalInfo: outcome.notificationRenewalInfo)
    }
}

extension ServerLedger {
    func record(notification outcome: SignedDataOutcome) async throws(LedgerError) {
        try await ledger.record(notification: outcome)
    }
}
