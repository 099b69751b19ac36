import GRDB

/// The SQLite side of `DatabaseLedgerStore`, through GRDB's `DatabasePool`: writes committed in
/// groups (`SQLiteGroupCommit`) in `BEGIN IMMEDIATE` transactions on the pool's one writer, reads
/// on its readers (WAL: they never wait for a write).
struct SQLiteLedgerDriver: LedgerDriver {
    let pool: DatabasePool
    let groupCommit: SQLiteGroupCommit

    init(pool: DatabasePool) {
        self.pool = pool
        groupCommit = SQLiteGroupCommit(pool: pool)
    }

    /// BEGIN IMMEDIATE takes the write lock before anything is read: no statement needed.
    var migrationLock: LedgerStatement? { nil }

    /// One writer at a time already.
    func transactionLock(_ key: LedgerLockKey) -> LedgerStatement? { nil }
    var lockingSkippingLockedRows: String { "" }

    func write<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T {
        try await groupCommit.write(work)
    }

    /// `write`, blocking the caller: for the store's synchronous initialiser.
    func writeNow<T>(_ work: (any LedgerConnection) throws -> T) throws -> T {
        try pool.writeWithoutTransaction { db in try Self.immediateTransaction(db, work) }
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T {
        try await pool.read { db in try work(SQLiteLedgerConnection(db: db)) }
    }

    func describe(_ failure: any Error) -> String {
        Self.describe(failure)
    }

    /// GRDB's errors say what SQLite reported ("database or disk is full", "file is not a database").
    static func describe(_ failure: any Error) -> String {
        String(describing: failure)
    }

    /// A `BEGIN IMMEDIATE` transaction: it takes SQLite's write lock first, so a second process
    /// waits (busy timeout) instead of failing when it upgrades from a read.
    private static func immediateTransaction<T>(_ db: Database, _ work: (any LedgerConnection) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction(.immediate) {
            result = try work(SQLiteLedgerConnection(db: db))
            return .commit
        }
        guard let result else { throw LedgerError.storageUnavailable("the write did not complete") }
        return result
    }
}
