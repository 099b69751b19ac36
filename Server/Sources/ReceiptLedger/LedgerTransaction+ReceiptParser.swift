import ReceiptParser

// Converters from the library's verified models. A purchase or transaction without a transaction id
// cannot be credited exactly once (there is nothing to key it on), so it converts to nil.
extension LedgerTransaction {
    /// Every purchase of a verified receipt that has a transaction id, in the receipt's order.
    public static func transactions(of receipt: Receipt) -> [LedgerTransaction] {
        receipt.inAppPurchases.compactMap { LedgerTransaction(purchase: $0, in: receipt) }
    }

    /// A purchase of a verified receipt; the bundle id and environment are the receipt's.
    public init?(purchase: InAppPurchase, in receipt: Receipt) {
        guard let transactionId = purchase.transactionID, !transactionId.isEmpty else { return nil }
        self.init(
            transactionId: transactionId,
            originalTransactionId: purchase.originalTransactionID,
            productId: purchase.productID,
            bundleId: receipt.bundleID,
            environment: receipt.environment.storeKitName ?? "Unknown",
            purchaseDate: purchase.purchaseDate,
            expiresDate: purchase.expiresDate,
            source: .receipt,
            revocationDate: purchase.cancellationDate,
            revocationReason: purchase.cancellationDate == nil ? nil : "cancelled in receipt",
            snapshot: SignedTransaction(purchase: purchase, in: receipt)
        )
    }

    /// A verified StoreKit 2 signed transaction.
    public init?(signedTransaction transaction: SignedTransaction) {
        guard let transactionId = transaction.transactionId, !transactionId.isEmpty else { return nil }
        self.init(
            transactionId: transactionId,
            originalTransactionId: transaction.originalTransactionId,
            productId: transaction.productId,
            bundleId: transaction.bundleId,
            environment: transaction.environment ?? "Unknown",
            purchaseDate: transaction.purchaseDate,
            expiresDate: transaction.expiresDate,
            source: .jws,
            appAccountToken: transaction.appAccountToken.flatMap { $0.isEmpty ? nil : $0 },
            revocationDate: transaction.revocationDate,
            revocationReason: transaction.revocationDate == nil
                ? nil : "revoked (reason \(transaction.revocationReason?.description ?? "none"))",
            snapshot: transaction
        )
    }
}
