/// What a database must provide for `DatabaseLedgerStore` to run the ledger on it: transactions,
/// how it keeps two processes from migrating at once, and what its failures mean. Everything else,
/// the statements, their order and what their answers mean, is written once in the store.
package protocol LedgerDriver: Sendable {
    /// Runs `work` in one transaction that writes, committed when `work` returns and rolled back
    /// when it throws. Overlapping transactions on the same rows wait for each other (the store
    /// writes rows in key order, so that they never wait in a circle).
    func write<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T

    /// Runs `work`, which only reads, over a connection of the database.
    func read<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T

    /// Run first in the migrations' transaction so that only one process migrates at a time; nil
    /// when that transaction excludes other writers from its start already (SQLite's BEGIN IMMEDIATE).
    var migrationLock: LedgerStatement? { get }

    /// The statement that makes this transaction wait, until it ends, for any other one that
    /// took `key` (a ``LedgerLockKey``); nil when writing transactions never overlap (SQLite).
    func transactionLock(_ key: LedgerLockKey) -> LedgerStatement?

    /// Ends a SELECT so that it locks the rows it reads, until the transaction ends, and passes over
    /// rows another transaction holds instead of waiting for them (PostgreSQL's `FOR UPDATE SKIP
    /// LOCKED`); empty when writing transactions never overlap (SQLite).
    var lockingSkippingLockedRows: String { get }

    /// What went wrong, for the admin who reads `storageUnavailable`: what the database reported,
    /// and where it is (never a password).
    func describe(_ failure: any Error) -> String
}

extension LedgerDriver {
    /// `error` as the ledger reports it.
    func ledgerError(_ error: any Error) -> LedgerError {
        LedgerError.storage(error, describe: describe)
    }
}

extension LedgerError {
    /// `error` as the ledger reports it: the ledger's own errors pass through, anything else is
    /// `storageUnavailable` with what went wrong, as `describe` says it.
    static func storage(_ error: any Error, describe: (any Error) -> String) -> LedgerError {
        if let ledgerError = error as? LedgerError { return ledgerError }
        return .storageUnavailable(describe(error))
    }
}
