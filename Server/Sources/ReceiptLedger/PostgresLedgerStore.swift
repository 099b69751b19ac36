import Foundation
import PostgresNIO
import ServiceLifecycle

/// The ledger in PostgreSQL, for several receipt-server processes on several machines sharing one
/// ledger. Its operations are `DatabaseLedgerStore`'s, the same as SQLite's; the unique keys decide
/// every race, whichever process asks. Every failure (refused connection, server gone, full disk, a
/// query refused) is `storageUnavailable`, within `timeout`: a database that is down never holds a
/// request for longer.
public final class PostgresLedgerStore: DatabaseLedgerStore, @unchecked Sendable {
    private let client: PostgresClient
    private let threads: NIOThreadPool
    /// The client's `run()`, which its connection pool needs, when the store runs it itself;
    /// cancelled by `close()`.
    private let running: Task<Void, Never>?

    /// Who runs the store's PostgreSQL client (its connection pool), without which no call is answered.
    public enum ClientLifetime: Sendable {
        /// The store, in a task of its own, from `init` until `close()`.
        case ownTask
        /// The caller, through `run()`: a ServiceLifecycle service group runs it among the
        /// application's services, so that the pool starts and stops with the application.
        case service
    }

    /// How many connections the pool opens at most, and so how many operations run at once.
    private static let connections = 20

    /// Connects to the database named by `url` (see `PostgresLedgerURL`:
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`, TLS
    /// preferred by default) and applies the schema migrations it lacks; with
    /// `writesWebhookEvents`, every write also writes its webhook events. Throws
    /// `storageUnavailable` when the URL is malformed, or the database cannot be reached, logged
    /// into or migrated, within 10 seconds.
    public convenience init(url: String, clientLifetime: ClientLifetime = .ownTask, writesWebhookEvents: Bool = false) async throws(LedgerError) {
        try await self.init(url: url, timeout: .seconds(10), clientLifetime: clientLifetime, writesWebhookEvents: writesWebhookEvents)
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
    package init(url: String, timeout: Duration, clientLifetime: ClientLifetime = .ownTask,
                 writesWebhookEvents: Bool = false) async throws(LedgerError) {
        let location = try PostgresLedgerURL(url)
        let threads = NIOThreadPool(numberOfThreads: Self.connections)
        threads.start()
        var configuration = location.clientConfiguration(connectTimeout: timeout)
        configuration.options.maximumConnections = Self.connections
        let client = PostgresClient(configuration: configuration)
        let driver = PostgresLedgerDriver(client: client, threads: threads, timeout: timeout, location: location)
        do {
            // Over a connection of its own, all steps in one transaction after the advisory lock: a
            // process starting beside another waits for its migrations to commit, then finds them applied.
            try await PostgresLedgerDriver.withOwnConnection(to: location, timeout: timeout) { connection, deadline in
                try await threads.runIfActive {
                    try PostgresLedgerConnection(connection: connection, deadline: deadline, timeout: timeout).inTransaction { connection in
                        try LedgerMigrator.apply(on: connection, lockedBy: driver.migrationLock)
                    }
                }
            }
        } catch {
            try? await threads.shutdownGracefully()
            throw error
        }
        self.client = client
        self.threads = threads
        running = switch clientLifetime {
        case .ownTask: Task { [client] in await client.run() }
        case .service: nil
        }
        super.init(driver: driver, writesWebhookEvents: writesWebhookEvents)
    }

    deinit {
        running?.cancel()
        threads.shutdownGracefully { _ in }
    }

    /// Runs the client's connection pool until the calling task is cancelled, for a store opened
    /// with `clientLifetime: .service`: this is the store's `Service.run()`, so an application adds
    /// the store to its service group. With `.ownTask` the store runs the pool already, and this
    /// only waits for the store's own task to end.
    public func run() async {
        if let running {
            await withTaskCancellationHandler { await running.value } onCancel: { running.cancel() }
        } else {
            await client.run()
        }
    }

    /// Closes the connections (with `.service`, ending `run()` closes them); later calls throw
    /// `storageUnavailable`.
    public func close() async {
        running?.cancel()
        await running?.value
        try? await threads.shutdownGracefully()
    }

    /// Runs `sql` over a connection of its own to the database at `url`, without the ledger's
    /// migrations: for the tests' administration (CREATE DATABASE, triggers, pg_terminate_backend).
    package static func execute(_ sql: String, url: String, timeout: Duration = .seconds(10)) async throws(LedgerError) {
        try await PostgresLedgerDriver.withOwnConnection(to: try PostgresLedgerURL(url), timeout: timeout) { connection, _ in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresLedgerDriver.logger).get()
        }
    }
}

/// A store opened with `clientLifetime: .service` runs its connection pool as a service of the
/// application's service group.
extension PostgresLedgerStore: Service {}
