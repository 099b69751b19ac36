import Foundation
import Testing
import ReceiptLedger

@Suite("PostgreSQL ledger store: URLs, migrations, faults")
struct PostgresLedgerStoreTests {
    @Test(arguments: [
        "mysql://alice@localhost/ledger",
        "postgres://localhost/ledger",
        "postgres://alice:s3cret@localhost",
        "postgres://alice:s3cret@localhost:99999/ledger",
        "postgres://alice@localhost/ledger?sslmode=maybe",
        "postgres://alice@localhost/ledger?timeout=5",
        "not a url at all",
    ])
    func aMalformedURLSaysWhatIsExpectedAndNeverShowsThePassword(_ url: String) async throws {
        let message = try #require(await storageFailure { _ = try await PostgresLedgerStore(url: url) })
        #expect(message.contains("postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"))
        #expect(!message.contains("s3cret"))
    }

    @Test func nothingListeningIsATypedErrorAtOnce() async throws {
        let started = ContinuousClock.now
        let message = try #require(await storageFailure {
            _ = try await PostgresLedgerStore(url: "postgres://alice@127.0.0.1:\(try unusedPort())/ledger?sslmode=disable")
        })
        #expect(message.contains("cannot connect"))
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    /// A server that accepts the connection and never answers: the deadline, not a hang.
    @Test func aServerThatNeverAnswersIsATypedErrorWithinTheTimeout() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let started = ContinuousClock.now
        let message = try #require(await storageFailure {
            _ = try await PostgresLedgerStore(url: "postgres://alice@127.0.0.1:\(silent.port)/ledger", timeout: .seconds(1))
        })
        // The connect timeout or the store's own deadline, whichever fires first.
        #expect(message.contains("timeout") || message.contains("no answer"))
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func migrationsAreAppliedOnceAndReopeningAppliesNothingNew() async throws {
        try await withPostgresDatabase { url in
            let first = try await PostgresLedgerStore(url: url)
            #expect(try await first.appliedMigrations() == LedgerSchema.migrations.map(\.identifier))
            await first.close()
            let reopened = try await PostgresLedgerStore(url: url)
            #expect(try await reopened.appliedMigrations() == LedgerSchema.migrations.map(\.identifier))
            await reopened.close()
        }
    }

    /// Two processes starting together on a new database: the advisory lock makes one wait for the
    /// other's migrations instead of both creating the tables (where one would fail).
    @Test func storesStartingTogetherOnANewDatabaseApplyEachMigrationOnce() async throws {
        try await withPostgresDatabase { url in
            let stores = try await withThrowingTaskGroup(of: PostgresLedgerStore.self) { group in
                for _ in 0..<4 { group.addTask { try await PostgresLedgerStore(url: url) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for store in stores {
                #expect(try await store.appliedMigrations() == LedgerSchema.migrations.map(\.identifier))
                await store.close()
            }
        }
    }

    /// A store whose client runs as a service answers while `run()` runs (as a service group runs
    /// it), and, once that is cancelled, fails typed within its deadline. (4 s: the deadline also
    /// bounds opening and migrating, which a suite running in parallel can slow past 2 s.)
    @Test func aStoreWhoseClientRunsAsAServiceAnswersWhileItRuns() async throws {
        try await withPostgresDatabase { url in
            // A deadline a loaded machine meets for the first connection; the bound below is what is tested.
            let store = try await PostgresLedgerStore(url: url, timeout: .seconds(10), clientLifetime: .service)
            let ledger = Ledger(store: store)
            let service = Task { await store.run() }
            #expect(try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
                == CreditOutcome(credited: ["1000"]))
            service.cancel()
            await service.value
            let started = ContinuousClock.now
            #expect(await storageFailure { _ = try await ledger.credits(of: "alice") } != nil)
            #expect(ContinuousClock.now - started < .seconds(12))
            await store.close()
        }
    }

    @Test func aClosedStoreIsATypedError() async throws {
        try await withPostgresDatabase { url in
            let store = try await PostgresLedgerStore(url: url)
            await store.close()
            #expect(await storageFailure { _ = try await Ledger(store: store).credits(of: "alice") } != nil)
        }
    }

    /// The server ends the store's connections (a restart, a failover, an admin): each request
    /// fails with `storageUnavailable` or succeeds, never crashes or hangs past the store's deadline,
    /// and the store is back within a few requests. (A pool may hold several dead connections, and
    /// postgres-nio's pool has been seen to stall one lease until the deadline after such a kill.)
    @Test func aKilledBackendIsATypedErrorOrATransparentReconnect() async throws {
        try await withLedger(.postgres) { ledger, database in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
            try await PostgresLedgerStore.execute("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """, url: database.location)
            var credits: [Credit]?
            for _ in 0..<6 where credits == nil {
                let started = ContinuousClock.now
                do {
                    credits = try await ledger.credits(of: "alice")
                } catch LedgerError.storageUnavailable {
                    #expect(ContinuousClock.now - started < .seconds(12))
                }
            }
            #expect(credits?.map(\.transactionId) == ["1000"])
            #expect(try await ledger.credit(user: "alice", transactions: [receiptTransaction("1001")])
                == CreditOutcome(credited: ["1001"]))
        }
    }

    /// The database reports its disk full (SQLSTATE 53100, from a trigger standing in for a full
    /// disk): a typed error that says so, nothing credited, and crediting works again once there is room.
    @Test func aFullDatabaseIsATypedErrorAndWritesNoCredit() async throws {
        try await withLedger(.postgres) { ledger, database in
            try await Self.fillTheDisk(on: "ledger_credits", at: database.location)
            let input = [receiptTransaction("1000"), receiptTransaction("1001")]
            let message = try #require(await storageFailure { _ = try await ledger.credit(user: "alice", transactions: input) })
            #expect(message.contains("53100"))
            #expect(message.contains("No space left on device"))
            #expect(try await ledger.credits(of: "alice").isEmpty)

            try await PostgresLedgerStore.execute("DROP TRIGGER ledger_test_disk_full ON ledger_credits", url: database.location)
            #expect(try await ledger.credit(user: "alice", transactions: input) == CreditOutcome(credited: ["1000", "1001"]))
        }
    }

    /// The sightings are sent without waiting for their answers (one round trip less each): when
    /// one fails, the credit reports that failure, not the aborted transaction it leaves behind,
    /// and nothing of the request is written.
    @Test func aFailedSightingSentWithoutWaitingFailsTheCreditWithItsOwnError() async throws {
        try await withLedger(.postgres) { ledger, database in
            try await Self.fillTheDisk(on: "ledger_transactions", at: database.location)
            let input = [receiptTransaction("1000"), receiptTransaction("1001")]
            let message = try #require(await storageFailure { _ = try await ledger.credit(user: "alice", transactions: input) })
            #expect(message.contains("53100"))
            #expect(!message.contains("25P02"))  // in_failed_sql_transaction: the consequence, not the cause
            #expect(try await ledger.credits(of: "alice").isEmpty)

            try await PostgresLedgerStore.execute("DROP TRIGGER ledger_test_disk_full ON ledger_transactions", url: database.location)
            #expect(try await ledger.uncredited(olderThan: -3600).isEmpty)
            #expect(try await ledger.credit(user: "alice", transactions: input) == CreditOutcome(credited: ["1000", "1001"]))
        }
    }

    /// A trigger that fails every insert into `table` as a full disk does (SQLSTATE 53100).
    static func fillTheDisk(on table: String, at location: String) async throws {
        try await PostgresLedgerStore.execute("""
            CREATE FUNCTION ledger_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$
            """, url: location)
        try await PostgresLedgerStore.execute("""
            CREATE TRIGGER ledger_test_disk_full BEFORE INSERT ON \(table)
            FOR EACH ROW EXECUTE FUNCTION ledger_test_disk_full()
            """, url: location)
    }
}
