import ReceiptLedger

extension ServerLedger {
    /// What a verified notification tells the ledger (`Ledger.apply(notification:transaction:)`
    /// decides it from the notification's type); a refused notification records nothing.
    func record(notification outcome: SignedDataOutcome) async throws(LedgerError) {
        guard outcome.refusal == nil, let notification = outcome.notification else { return }
        try await ledger.apply(notification: notification, transaction: outcome.notificationTransaction,
                               renewalInfo: outcome.notificationRenewalInfo)
    }
}
