import Foundation
import GRDB

/// The ledger in an SQLite file, through GRDB's `DatabasePool`: WAL mode, so reads (the queries)
/// never wait for the credit writes, and writes are serialised by SQLite itself, also across
/// processes sharing the file. GRDB rather than sqlite-nio: it gives WAL pooling, busy timeouts and
/// immediate transactions out of the box, and its async `read`/`write` run the blocking SQLite calls
/// off the caller's executor, which is all an async store needs. The operations themselves are
/// `DatabaseLedgerStore`'s, the same as PostgreSQL's.
public final class SQLiteLedgerStore: DatabaseLedgerStore, @unchecked Sendable {
    private let pool: DatabasePool

    /// Opens (creating it if need be) the database at `path` and applies the schema migrations it
    /// lacks; with `writesWebhookEvents`, every write also writes its webhook events. Throws
    /// `storageUnavailable` when the file cannot be opened, read or migrated.
    public convenience init(path: String, writesWebhookEvents: Bool = false) throws(LedgerError) {
        try self.init(path: path, sparePages: nil, writesWebhookEvents: writesWebhookEvents)
    }

    /// `sparePages` caps the file's size, once migrated, for the tests: a full database, even when
    /// they run as root, whatever the schema takes.
    package init(path: String, sparePages: Int?, writesWebhookEvents: Bool = false) throws(LedgerError) {
        var configuration = Configuration()
        configuration.label = "ReceiptLedger"
        configuration.foreignKeysEnabled = true
        // Another process writing the same file: wait for it rather than fail at once.
        configuration.busyMode = .timeout(10)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // GRDB sets WAL's usual `synchronous = NORMAL`, under which a power cut may lose the last
            // commits; an acknowledged credit must survive one, so every commit is synced (the pool
            // has one writer connection, which keeps its settings).
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // The writer's page cache: 64 MiB instead of SQLite's 2, so that the indexes a
                // large ledger's writes land in stay in it (credits with 1 000 000 subscriptions +2-4 %).
                try db.execute(sql: "PRAGMA cache_size = -65536")
            }
            let driver = SQLiteLedgerDriver(pool: pool)
            try driver.writeNow { connection in try LedgerMigrator.apply(on: connection, lockedBy: driver.migrationLock) }
            if let sparePages {
                try pool.writeWithoutTransaction { db in
                    let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                    try db.execute(sql: "PRAGMA max_page_count = \(pages + sparePages)")
                }
            }
        } catch {
            throw LedgerError.storage(error, describe: SQLiteLedgerDriver.describe)
        }
        self.pool = pool
        super.init(driver: SQLiteLedgerDriver(pool: pool), writesWebhookEvents: writesWebhookEvents)
    }

    /// Closes the database's connections; later calls throw `storageUnavailable`.
    public func close() throws(LedgerError) {
        do { try pool.close() } catch { throw driver.ledgerError(error) }
    }

    /// The writer's `PRAGMA synchronous` (2 is FULL), for the tests.
    package func synchronousSetting() async throws(LedgerError) -> Int {
        do {
            return try await pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
        } catch {
            throw driver.ledgerError(error)
        }
    }
}
