import Foundation

/// The one place that turns the rows of `LedgerSQL.uncredited`, `creditsOfUser` and `revokedCredits`
/// into values, whatever the database; the column numbers follow those statements' SELECT lists.
enum LedgerRows {
    static func seenTransaction(_ row: LedgerRow) throws -> SeenTransaction {
        SeenTransaction(
            transaction: LedgerTransaction(
                transactionId: try row.requiredText(0), originalTransactionId: try row.text(1),
                productId: try row.text(2), bundleId: try row.text(3), environment: try row.requiredText(4),
                purchaseDate: try row.integer(5).map(LedgerDate.date),
                expiresDate: try row.integer(6).map(LedgerDate.date),
                source: TransactionSource(rawValue: try row.requiredText(7)) ?? .receipt,
                appAccountToken: try row.text(8)
            ),
            firstSeenAt: LedgerDate.date(try row.requiredInteger(9)),
            revokedAt: try row.integer(10).map(LedgerDate.date),
            revocationReason: try row.text(11)
        )
    }

    static func credit(_ row: LedgerRow) throws -> Credit {
        Credit(
            transactionId: try row.requiredText(0), user: try row.requiredText(1),
            creditedAt: LedgerDate.date(try row.requiredInteger(2)), productId: try row.text(3),
            revokedAt: try row.integer(4).map(LedgerDate.date), revocationReason: try row.text(5)
        )
    }
}
