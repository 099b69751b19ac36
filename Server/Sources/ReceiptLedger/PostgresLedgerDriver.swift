import Dispatch
import Logging
import PostgresNIO

/// The PostgreSQL side of `DatabaseLedgerStore`: pooled connections of a `PostgresClient`, each
/// operation run on a thread of `threads` (one per connection the pool may open, so a transaction
/// holding locks never waits for a thread) and answered within `timeout`.
struct PostgresLedgerDriver: LedgerDriver {
    let client: PostgresClient
    let threads: NIOThreadPool
    let timeout: Duration
    /// Named in every error message (never with the password), for the admin who reads it.
    let location: PostgresLedgerURL

    /// Any two processes agree on this key, so only one of them migrates at a time ("ledger" in
    /// ASCII); the lock is the transaction's, released by its commit.
    let migrationLock: LedgerStatement? = LedgerStatement(sql: "SELECT pg_advisory_xact_lock(?)", values: [.integer(0x6C65_6467_6572)])

    /// The two-key form, whose keys never meet the migration lock's one key.
    func transactionLock(_ key: LedgerLockKey) -> LedgerStatement? {
        LedgerStatement(sql: "SELECT pg_advisory_xact_lock(CAST(? AS INTEGER), CAST(? AS INTEGER))",
                        values: [.integer(Int64(key.space)), .integer(Int64(key.value))])
    }

    let lockingSkippingLockedRows = "FOR UPDATE SKIP LOCKED"

    func write<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T {
        try await perform { connection in try connection.inTransaction(work) }
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T {
        try await perform(work)
    }

    func describe(_ failure: any Error) -> String {
        PostgresLedgerFailure.describe(failure, at: location)
    }

    /// `work` over a pooled connection, on a thread of `threads`, within the timeout.
    private func perform<T: Sendable>(_ work: @escaping @Sendable (PostgresLedgerConnection) throws -> T) async throws -> T {
        let deadline = DispatchTime.now() + Self.dispatchInterval(timeout)
        return try await withDeadline(timeout) { [client, threads, timeout] in
            try await client.withConnection { connection in
                try await threads.runIfActive {
                    try work(PostgresLedgerConnection(connection: connection, deadline: deadline, timeout: timeout))
                }
            }
        }
    }

    /// `work` over a connection of its own, outside the pool: for the migrations (a refused
    /// connection or a wrong password is reported at once, where the pool would keep retrying in
    /// the background until the timeout) and the tests' administration.
    static func withOwnConnection<T: Sendable>(
        to location: PostgresLedgerURL, timeout: Duration,
        _ work: @escaping @Sendable (PostgresConnection, DispatchTime) async throws -> T
    ) async throws(LedgerError) -> T {
        let deadline = DispatchTime.now() + dispatchInterval(timeout)
        do {
            return try await withDeadline(timeout) {
                let connection = try await PostgresConnection.connect(
                    configuration: try location.connectionConfiguration(connectTimeout: timeout), id: 0, logger: logger)
                let result: T
                do {
                    result = try await work(connection, deadline)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try await connection.close()
                return result
            }
        } catch {
            throw LedgerError.storage(error) { PostgresLedgerFailure.describe($0, at: location) }
        }
    }

    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// The store reports every failure as `LedgerError`; postgres-nio's own logging stays quiet.
    static let logger: Logger = {
        var logger = Logger(label: "ReceiptLedger.PostgresLedgerStore")
        logger.logLevel = .critical
        return logger
    }()
}
