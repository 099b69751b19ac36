import Foundation
import PostgresNIO

/// The ledger in PostgreSQL, for several receipt-server processes on several machines sharing one
/// ledger. It runs the same `LedgerSQL` statements and `LedgerSchema` migrations as
/// `SQLiteLedgerStore`; the unique keys decide every race, whichever process asks. Every failure
/// (refused connection, server gone, full disk, a query refused) is `storageUnavailable`, within
/// `timeout`: a database that is down never holds a request for longer.
public final class PostgresLedgerStore: LedgerStore {
    private let client: PostgresClient
    /// The client's `run()`, which its connection pool needs; cancelled by `close()`.
    private let running: Task<Void, Never>
    private let timeout: Duration
    /// Named in every error message (never with the password), for the admin who reads it.
    private let location: PostgresLedgerURL

    /// Connects to the database named by `url` (see `PostgresLedgerURL`:
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`, TLS
    /// preferred by default) and applies the schema migrations it lacks. Throws
    /// `storageUnavailable` when the URL is malformed, or the database cannot be reached, logged
    /// into or migrated, within 10 seconds.
    public convenience init(url: String) async throws(LedgerError) {
        try await self.init(url: url, timeout: .seconds(10))
    }

    /// Checks that `url` is a usable ledger URL without connecting: a server refuses a malformed
    /// `--ledger` before it starts. Throws `storageUnavailable` saying what is wrong.
    public static func checkURL(_ url: String) throws(LedgerError) {
        _ = try PostgresLedgerURL(url)
    }

    /// `url` with its password replaced by `***`, for messages and logs.
    public static func redacted(url: String) -> String {
        PostgresLedgerURL.redacted(url)
    }

    /// `timeout` bounds connecting and each operation.
    package init(url: String, timeout: Duration) async throws(LedgerError) {
        let location = try PostgresLedgerURL(url)
        // Migrating over a connection of its own reports a refused connection or a wrong password
        // at once, where the pool would keep retrying in the background until the timeout.
        try await Self.withOwnConnection(to: location, timeout: timeout, Self.applyMigrations)
        self.timeout = timeout
        self.location = location
        client = PostgresClient(configuration: location.clientConfiguration(connectTimeout: timeout))
        running = Task { [client] in await client.run() }
    }

    deinit { running.cancel() }

    /// Closes the connections; later calls throw `storageUnavailable`.
    public func close() async {
        running.cancel()
        await running.value
    }

    /// The migration identifiers applied to this database, in the order applied.
    public func appliedMigrations() async throws(LedgerError) -> [String] {
        try await perform { connection in
            try await connection.rows(LedgerSQL.appliedMigrationsInOrder).map { try $0.decode(String.self) }
        }
    }

    public func recordSeen(_ transactions: [LedgerTransaction], at now: Date) async throws(LedgerError) {
        try await inTransaction { connection in try await Self.record(transactions, at: now, on: connection) }
    }

    /// One transaction under READ COMMITTED: an insert that conflicts with another's uncommitted
    /// credit waits for its commit, and the holder is then read from a fresh snapshot.
    public func recordAndClaim(
        _ seen: [LedgerTransaction], claiming transactionIds: [String], for user: String, at now: Date
    ) async throws(LedgerError) -> ClaimAnswer {
        let creditedAt = LedgerDate.milliseconds(now)
        return try await inTransaction { connection in
            try await Self.record(seen, at: now, on: connection)
            // Every binding first, so that a mismatch credits nothing of the request (a token recorded
            // by a racing request after this read is still refused by the insert's own condition).
            for id in transactionIds {
                guard let row = try await connection.rows(LedgerSQL.tokenOwner, [id]).first else { continue }
                let (token, owner) = try row.decode((String?, String?).self)
                if token != nil, !Ledger.isSameUser(owner, user) { return .appAccountTokenMismatch(transactionId: id) }
            }
            var inserted: Set<String> = []
            for id in Self.inLockOrder(transactionIds, id: \.self) {
                if try await connection.run(LedgerSQL.insertCredit, [user, creditedAt, id, user]).metadata.rows == 1 {
                    inserted.insert(id)
                }
            }
            var claims: [CreditClaim] = []
            for id in transactionIds {
                let state = try await connection.rows(LedgerSQL.claimState, [id]).first?.decode((String?, Int64?).self)
                claims.append(CreditClaim(transactionId: id, holder: state?.0 ?? nil, isNew: inserted.contains(id),
                                          isRevoked: state?.1 != nil))
            }
            return .claimed(claims)
        }
    }

    public func bind(user: String, appAccountToken: String) async throws(LedgerError) {
        let bound = try await inTransaction { connection in
            try await connection.run(LedgerSQL.insertUser, [user, appAccountToken])
            let tokenOfUser = try await connection.rows(LedgerSQL.tokenOfUser, [user]).first?.decode(String.self)
            let userOfToken = try await connection.rows(LedgerSQL.userOfToken, [appAccountToken]).first?.decode(String.self)
            return tokenOfUser == appAccountToken && Ledger.isSameUser(userOfToken, user)
        }
        if !bound { throw .bindingConflict(user: user) }
    }

    public func uncredited(firstSeenBefore date: Date, limit: Int) async throws(LedgerError) -> [SeenTransaction] {
        try await perform { connection in
            try await connection.rows(LedgerSQL.uncredited, [LedgerDate.milliseconds(date), limit]).map { row in
                LedgerRows.seenTransaction(try row.decode(
                    (String, String?, String?, String?, String, Int64?, Int64?, String, String?, Int64, Int64?, String?).self))
            }
        }
    }

    public func credits(of user: String, limit: Int) async throws(LedgerError) -> [Credit] {
        try await perform { connection in try await connection.rows(LedgerSQL.creditsOfUser, [user, limit]).map(Self.credit) }
    }

    public func markRevoked(transactionId: String, at date: Date, reason: String) async throws(LedgerError) -> Bool {
        try await inTransaction { connection in
            try await connection.run(LedgerSQL.markRevoked, [LedgerDate.milliseconds(date), reason, transactionId])
            return try await !connection.rows(LedgerSQL.isSeen, [transactionId]).isEmpty
        }
    }

    public func clearRevocation(transactionId: String) async throws(LedgerError) -> Bool {
        try await inTransaction { connection in
            try await connection.run(LedgerSQL.clearRevocation, [transactionId])
            return try await !connection.rows(LedgerSQL.isSeen, [transactionId]).isEmpty
        }
    }

    public func revokedCredits(limit: Int) async throws(LedgerError) -> [Credit] {
        try await perform { connection in try await connection.rows(LedgerSQL.revokedCredits, [limit]).map(Self.credit) }
    }

    /// Runs `sql` over a connection of its own to the database at `url`, without the ledger's
    /// migrations: for the tests' administration (CREATE DATABASE, triggers, pg_terminate_backend).
    package static func execute(_ sql: String, url: String, timeout: Duration = .seconds(10)) async throws(LedgerError) {
        try await withOwnConnection(to: try PostgresLedgerURL(url), timeout: timeout) { connection in
            try await connection.run(sql)
        }
    }

    // MARK: - Plumbing

    /// Sightings in key order, as every write here takes its rows: overlapping requests wait for
    /// each other instead of deadlocking.
    private static func record(_ transactions: [LedgerTransaction], at now: Date, on connection: PostgresConnection) async throws {
        for transaction in inLockOrder(transactions, id: \.transactionId) {
            for statement in LedgerSQL.recordSeen(transaction, firstSeenAt: now) {
                try await connection.run(statement.sql, statement.values.map(\.postgresValue))
            }
        }
    }

    /// Rows are written in one order, by key, whatever the input's: two requests writing overlapping
    /// transactions then wait for each other instead of deadlocking (which PostgreSQL would break by
    /// failing one). Equal keys keep their input order, so the first sighting still wins.
    private static func inLockOrder<Element>(_ elements: [Element], id: (Element) -> String) -> [Element] {
        elements.enumerated()
            .sorted { (id($0.element), $0.offset) < (id($1.element), $1.offset) }
            .map(\.element)
    }

    private static func credit(_ row: PostgresRow) throws -> Credit {
        LedgerRows.credit(try row.decode((String, String, Int64, String?, Int64?, String?).self))
    }

    /// Any two processes agree on this key, so only one of them migrates at a time ("ledger" in ASCII).
    private static let migrationLock: Int64 = 0x6C65_6467_6572

    /// All steps in one transaction, after the advisory lock: a process starting beside another waits
    /// for its migrations to commit, then finds them applied.
    private static func applyMigrations(_ connection: PostgresConnection) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(?)", [migrationLock])
            try await connection.run(LedgerSQL.createMigrationsTable)
            let applied = Set(try await connection.rows(LedgerSQL.appliedMigrations).map { try $0.decode(String.self) })
            for (migration, appliedAtMs) in LedgerSchema.pending(applied: applied, at: Date()) {
                for statement in migration.statements { try await connection.run(statement) }
                try await connection.run(LedgerSQL.insertMigration, [migration.identifier, appliedAtMs])
            }
        }
    }

    private static func withOwnConnection(
        to location: PostgresLedgerURL, timeout: Duration,
        _ work: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws(LedgerError) {
        do {
            try await withDeadline(timeout) {
                let connection = try await PostgresConnection.connect(
                    configuration: try location.connectionConfiguration(connectTimeout: timeout), id: 0, logger: logger)
                do {
                    try await work(connection)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try await connection.close()
            }
        } catch {
            throw PostgresLedgerFailure.unavailable(error, at: location)
        }
    }

    private func inTransaction<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(LedgerError) -> T {
        try await perform { connection in try await connection.withTransaction(logger: Self.logger) { try await work($0) } }
    }

    /// `work` over a pooled connection, within the timeout.
    private func perform<T: Sendable>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(LedgerError) -> T {
        do {
            return try await withDeadline(timeout) { [client] in
                try await client.withConnection { connection in try await work(connection) }
            }
        } catch {
            throw PostgresLedgerFailure.unavailable(error, at: location)
        }
    }

    /// The store reports every failure as `LedgerError`; postgres-nio's own logging stays quiet.
    fileprivate static let logger: Logger = {
        var logger = Logger(label: "ReceiptLedger.PostgresLedgerStore")
        logger.logLevel = .critical
        return logger
    }()
}

extension PostgresConnection {
    /// Runs one `LedgerSQL` statement with its `?` placeholders bound to `values` in order.
    @discardableResult
    fileprivate func run(_ sql: String, _ values: [(any PostgresDynamicTypeEncodable)?] = []) async throws -> PostgresQueryResult {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            if let value { bindings.append(value) } else { bindings.appendNull() }
        }
        let result: EventLoopFuture<PostgresQueryResult> = query(
            PostgresQuery(unsafeSQL: LedgerSQL.numberedPlaceholders(sql), binds: bindings), logger: PostgresLedgerStore.logger)
        return try await result.get()
    }

    fileprivate func rows(_ sql: String, _ values: [(any PostgresDynamicTypeEncodable)?] = []) async throws -> [PostgresRow] {
        try await run(sql, values).rows
    }
}

extension LedgerValue {
    fileprivate var postgresValue: (any PostgresDynamicTypeEncodable)? {
        switch self {
        case .text(let text): text
        case .integer(let integer): integer
        }
    }
}
