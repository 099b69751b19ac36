import Foundation

/// The columns of `LedgerSQL.uncredited`, `creditsOfUser` and `revokedCredits` as each driver decodes
/// them, and the one place that turns them into values, whatever the database.
enum LedgerRows {
    typealias Uncredited = (
        transactionId: String, originalTransactionId: String?, productId: String?, bundleId: String?,
        environment: String, purchaseDateMs: Int64?, expiresDateMs: Int64?, source: String,
        appAccountToken: String?, firstSeenAtMs: Int64, revokedAtMs: Int64?, revocationReason: String?
    )
    typealias Credited = (
        transactionId: String, user: String, creditedAtMs: Int64, productId: String?,
        revokedAtMs: Int64?, revocationReason: String?
    )

    static func seenTransaction(_ row: Uncredited) -> SeenTransaction {
        SeenTransaction(
            transaction: LedgerTransaction(
                transactionId: row.transactionId, originalTransactionId: row.originalTransactionId,
                productId: row.productId, bundleId: row.bundleId, environment: row.environment,
                purchaseDate: row.purchaseDateMs.map(LedgerDate.date),
                expiresDate: row.expiresDateMs.map(LedgerDate.date),
                source: TransactionSource(rawValue: row.source) ?? .receipt,
                appAccountToken: row.appAccountToken
            ),
            firstSeenAt: LedgerDate.date(row.firstSeenAtMs),
            revokedAt: row.revokedAtMs.map(LedgerDate.date),
            revocationReason: row.revocationReason
        )
    }

    static func credit(_ row: Credited) -> Credit {
        Credit(
            transactionId: row.transactionId, user: row.user, creditedAt: LedgerDate.date(row.creditedAtMs),
            productId: row.productId, revokedAt: row.revokedAtMs.map(LedgerDate.date),
            revocationReason: row.revocationReason
        )
    }
}
