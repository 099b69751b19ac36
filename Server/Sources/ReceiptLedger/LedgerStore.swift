import Foundation

/// The ledger's storage. Implementations make each call atomic and enforce "credited once" in the
/// database itself (a unique key), so that several processes sharing one database stay correct.
/// Every failure of the database is thrown as `LedgerError.storageUnavailable`.
public protocol LedgerStore: Sendable {
    /// Records each transaction as seen at `now`; one already seen keeps its first record. Revocation
    /// dates in the input mark the transaction revoked, if it was not already.
    func recordSeen(_ transactions: [LedgerTransaction], at now: Date) async throws(LedgerError)

    /// In one database transaction: credits each id (already recorded as seen) to `user` unless
    /// someone holds it, then reads who holds each. Answers in the order asked.
    func claim(_ transactionIds: [String], for user: String, at now: Date) async throws(LedgerError) -> [CreditClaim]

    /// Binds a user to an appAccountToken (lowercased UUID), permanently; binding again is a no-op.
    func bind(user: String, appAccountToken: String) async throws(LedgerError)

    /// The user bound to an appAccountToken (lowercased UUID), if any.
    func user(boundTo appAccountToken: String) async throws(LedgerError) -> String?

    /// Transactions seen but never credited, first seen before `date`, oldest first, at most `limit`.
    func uncredited(firstSeenBefore date: Date, limit: Int) async throws(LedgerError) -> [SeenTransaction]

    /// A user's credits, oldest first, at most `limit`.
    func credits(of user: String, limit: Int) async throws(LedgerError) -> [Credit]

    /// Marks a seen transaction revoked; the first revocation is kept. False when it was never seen.
    func markRevoked(transactionId: String, at date: Date, reason: String) async throws(LedgerError) -> Bool

    /// Credits whose transaction was revoked, most recently revoked first, at most `limit`.
    func revokedCredits(limit: Int) async throws(LedgerError) -> [Credit]
}
