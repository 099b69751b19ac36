import Foundation
import GRDB

/// The ledger in an SQLite file, through GRDB's `DatabasePool`: WAL mode, so reads (the queries)
/// never wait for the credit writes, and writes are serialised by SQLite itself, also across
/// processes sharing the file. GRDB rather than sqlite-nio: it gives WAL pooling, busy timeouts and
/// immediate transactions out of the box, and its async `read`/`write` run the blocking SQLite calls
/// off the caller's executor, which is all an async store needs; the SQL itself stays portable.
public final class SQLiteLedgerStore: LedgerStore {
    private let pool: DatabasePool

    /// Opens (creating it if need be) the database at `path` and applies the schema migrations it
    /// lacks. Throws `storageUnavailable` when the file cannot be opened, read or migrated.
    public convenience init(path: String) throws(LedgerError) {
        try self.init(path: path, maxPageCount: nil)
    }

    /// `maxPageCount` caps the file's size for the tests: a full database, even when they run as root.
    package init(path: String, maxPageCount: Int?) throws(LedgerError) {
        var configuration = Configuration()
        if let maxPageCount {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA max_page_count = \(maxPageCount)") }
        }
        configuration.label = "ReceiptLedger"
        configuration.foreignKeysEnabled = true
        // Another process writing the same file: wait for it rather than fail at once.
        configuration.busyMode = .timeout(10)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB sets WAL's usual `synchronous = NORMAL`, under which a power cut may lose the last
            // commits; an acknowledged credit must survive one, so every commit is synced (the pool
            // has one writer connection, which keeps the setting).
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try pool.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try Self.applyMigrations(db)
                    return .commit
                }
            }
        } catch {
            throw Self.unavailable(error)
        }
    }

    /// Closes the database's connections; later calls throw `storageUnavailable`.
    public func close() throws(LedgerError) {
        do { try pool.close() } catch { throw Self.unavailable(error) }
    }

    /// The writer's `PRAGMA synchronous` (2 is FULL), for the tests.
    package func synchronousSetting() async throws(LedgerError) -> Int {
        do {
            return try await pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
        } catch {
            throw Self.unavailable(error)
        }
    }

    /// The migration identifiers applied to this database, in the order applied.
    public func appliedMigrations() async throws(LedgerError) -> [String] {
        try await read { db in try String.fetchAll(db, sql: LedgerSQL.appliedMigrationsInOrder) }
    }

    public func recordSeen(_ transactions: [LedgerTransaction], at now: Date) async throws(LedgerError) {
        try await writeImmediately { db in try Self.record(transactions, at: now, in: db) }
    }

    public func recordAndClaim(
        _ seen: [LedgerTransaction], claiming transactionIds: [String], for user: String, at now: Date
    ) async throws(LedgerError) -> ClaimAnswer {
        let creditedAt = LedgerDate.milliseconds(now)
        return try await writeImmediately { db in
            try Self.record(seen, at: now, in: db)
            // Every binding first, so that a mismatch credits nothing of the request.
            for id in transactionIds {
                guard let row = try Row.fetchOne(db, sql: LedgerSQL.tokenOwner, arguments: [id]),
                      let _ = row[0] as String? else { continue }
                if !Ledger.isSameUser(row[1], user) { return .appAccountTokenMismatch(transactionId: id) }
            }
            return .claimed(try transactionIds.map { id in
                try db.execute(sql: LedgerSQL.insertCredit, arguments: [user, creditedAt, id, user])
                let isNew = db.changesCount == 1
                // Whoever holds it now: this user if the insert happened, else the first credit's,
                // else nobody (revoked before any credit).
                let state = try Row.fetchOne(db, sql: LedgerSQL.claimState, arguments: [id])
                return CreditClaim(transactionId: id, holder: state?[0], isNew: isNew, isRevoked: (state?[1] as Int64?) != nil)
            })
        }
    }

    public func bind(user: String, appAccountToken: String) async throws(LedgerError) {
        let bound = try await writeImmediately { db in
            try db.execute(sql: LedgerSQL.insertUser, arguments: [user, appAccountToken])
            let tokenOfUser = try String.fetchOne(db, sql: LedgerSQL.tokenOfUser, arguments: [user])
            let userOfToken = try String.fetchOne(db, sql: LedgerSQL.userOfToken, arguments: [appAccountToken])
            return tokenOfUser == appAccountToken && Ledger.isSameUser(userOfToken, user)
        }
        if !bound { throw .bindingConflict(user: user) }
    }

    public func uncredited(firstSeenBefore date: Date, limit: Int) async throws(LedgerError) -> [SeenTransaction] {
        try await read { db in
            try Row.fetchAll(db, sql: LedgerSQL.uncredited, arguments: [LedgerDate.milliseconds(date), limit]).map { row in
                let columns: LedgerRows.Uncredited = (
                    row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10], row[11]
                )
                return LedgerRows.seenTransaction(columns)
            }
        }
    }

    public func credits(of user: String, limit: Int) async throws(LedgerError) -> [Credit] {
        try await read { db in try Row.fetchAll(db, sql: LedgerSQL.creditsOfUser, arguments: [user, limit]).map(Self.credit) }
    }

    public func markRevoked(transactionId: String, at date: Date, reason: String) async throws(LedgerError) -> Bool {
        try await writeImmediately { db in
            try db.execute(sql: LedgerSQL.markRevoked, arguments: [LedgerDate.milliseconds(date), reason, transactionId])
            return try Bool.fetchOne(db, sql: LedgerSQL.isSeen, arguments: [transactionId]) ?? false
        }
    }

    public func clearRevocation(transactionId: String) async throws(LedgerError) -> Bool {
        try await writeImmediately { db in
            try db.execute(sql: LedgerSQL.clearRevocation, arguments: [transactionId])
            return try Bool.fetchOne(db, sql: LedgerSQL.isSeen, arguments: [transactionId]) ?? false
        }
    }

    public func revokedCredits(limit: Int) async throws(LedgerError) -> [Credit] {
        try await read { db in try Row.fetchAll(db, sql: LedgerSQL.revokedCredits, arguments: [limit]).map(Self.credit) }
    }

    // MARK: - Plumbing

    private static func record(_ transactions: [LedgerTransaction], at now: Date, in db: Database) throws {
        for transaction in transactions {
            for statement in LedgerSQL.recordSeen(transaction, firstSeenAt: now) {
                try db.execute(sql: statement.sql, arguments: StatementArguments(statement.values.map(\.databaseValue)))
            }
        }
    }

    private static func credit(_ row: Row) -> Credit {
        let columns: LedgerRows.Credited = (row[0], row[1], row[2], row[3], row[4], row[5])
        return LedgerRows.credit(columns)
    }

    private static func applyMigrations(_ db: Database) throws {
        try db.execute(sql: LedgerSQL.createMigrationsTable)
        let applied = Set(try String.fetchAll(db, sql: LedgerSQL.appliedMigrations))
        for (migration, appliedAtMs) in LedgerSchema.pending(applied: applied, at: Date()) {
            for statement in migration.statements { try db.execute(sql: statement) }
            try db.execute(sql: LedgerSQL.insertMigration, arguments: [migration.identifier, appliedAtMs])
        }
    }

    /// A write in a `BEGIN IMMEDIATE` transaction: it takes SQLite's write lock first, so a second
    /// process waits (busy timeout) instead of failing when it upgrades from a read.
    private func writeImmediately<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws(LedgerError) -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try work(db)
                    return .commit
                }
                guard let result else { throw LedgerError.storageUnavailable("the write did not complete") }
                return result
            }
        } catch {
            throw Self.unavailable(error)
        }
    }

    private func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws(LedgerError) -> T {
        do {
            return try await pool.read(work)
        } catch {
            throw Self.unavailable(error)
        }
    }

    private static func unavailable(_ error: any Error) -> LedgerError {
        if let ledgerError = error as? LedgerError { return ledgerError }
        return .storageUnavailable(String(describing: error))
    }
}

extension LedgerValue {
    fileprivate var databaseValue: (any DatabaseValueConvertible)? {
        switch self {
        case .text(let text): text
        case .integer(let integer): integer
        }
    }
}
