import Foundation

/// A transaction as the ledger recorded it, with when it was first seen and whether it was revoked:
/// a row of the missed orders (`Ledger.uncredited(olderThan:)`).
public struct SeenTransaction: Sendable, Hashable {
    public var transaction: LedgerTransaction
    public var firstSeenAt: Date
    public var revokedAt: Date?
    public var revocationReason: String?

    public init(transaction: LedgerTransaction, firstSeenAt: Date, revokedAt: Date? = nil, revocationReason: String? = nil) {
        self.transaction = transaction
        self.firstSeenAt = firstSeenAt
        self.revokedAt = revokedAt
        self.revocationReason = revocationReason
    }
}
