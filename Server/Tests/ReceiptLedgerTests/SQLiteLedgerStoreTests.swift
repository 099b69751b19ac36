import Foundation
import Testing
import ReceiptLedger
import ServerTestSupport

@Suite("SQLite ledger store: migrations, persistence, faults")
struct SQLiteLedgerStoreTests {
    @Test func migrationsAreAppliedOnceAndReopeningAppliesNothingNew() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("ledger.sqlite").path
            let first = try SQLiteLedgerStore(path: path)
            #expect(LedgerSchema.migrations.map(\.identifier) == ["v1-transactions-credits-users", "v2-snapshots", "v3-subscription-owners",
                                                                  "v4-notification-log", "v5-webhook-outbox", "v6-reconcile", "v7-webhook-waiting",
                                                                  "v8-owners-through-credits", "v9-latest-transaction"])
            #expect(try await first.appliedMigrations() == LedgerSchema.migrations.map(\.identifier))
            try first.close()
            let reopened = try SQLiteLedgerStore(path: path)
            #expect(try await reopened.appliedMigrations() == LedgerSchema.migrations.map(\.identifier))
            try reopened.close()
        }
    }

    /// Values go into SQLite's statements and come back as they were: empty text and bytes are
    /// not NULL, text keeps a NUL byte (the store's statements refuse such text before, as
    /// PostgreSQL would: `unstorableText`), whole numbers keep their range; NULL of any kind reads
    /// back as NULL text. A statement given the wrong number of values is refused.
    @Test func valuesRoundTripThroughTheConnection() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SQLiteLedgerStore(path: directory.appendingPathComponent("ledger.sqlite").path)
            let values: [LedgerValue] = [.text(""), .bytes([]), .text("a\u{0}b é"), .bytes([0, 255, 7]), .integer(Int64.min),
                                         .integer(Int64.max), .text(nil), .integer(nil), .bytes(nil)]
            let answer = try await store.driver.write { connection in
                try connection.execute("SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, typeof(?), typeof(?)", values + [.text(""), .bytes([])])
            }
            #expect(answer.rows.map(\.values) == [Array(values.prefix(6)) + [.text(nil), .text(nil), .text(nil), .text("text"), .text("blob")]])
            await #expect(throws: (any Error).self) {
                try await store.driver.write { connection in try connection.execute("SELECT ?, ?", [.integer(1)]) }
            }
            try store.close()
        }
    }

    @Test func theFileIsInWALMode() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("ledger.sqlite").path
            let store = try SQLiteLedgerStore(path: path)
            try await Ledger(store: store).record(seen: [receiptTransaction("1000")])
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            try store.close()
        }
    }

    @Test func creditsSurviveCloseAndReopen() async throws {
        let clock = TestClock()
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("ledger.sqlite").path
            let store = try SQLiteLedgerStore(path: path)
            let ledger = Ledger(store: store, now: { clock.now })
            let token = UUID()
            try await ledger.bind(user: "alice", appAccountToken: token)
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
            try await ledger.record(seen: [receiptTransaction("1001")])
            try store.close()

            let reopened = Ledger(store: try SQLiteLedgerStore(path: path), now: { clock.now })
            #expect(try await reopened.credits(of: "alice").map(\.transactionId) == ["1000"])
            #expect(try await reopened.uncredited(olderThan: -1).map(\.transaction.transactionId) == ["1001"])
            #expect(try await reopened.credit(user: "bob", transactions: [receiptTransaction("1000")])
                == CreditOutcome(conflicts: ["1000"]))
            // The binding survived: binding it again to alice is fine, to bob a conflict.
            try await reopened.bind(user: "alice", appAccountToken: token)
            await #expect(throws: LedgerError.bindingConflict(user: "bob")) { try await reopened.bind(user: "bob", appAccountToken: token) }
        }
    }

    /// WAL's usual NORMAL may lose the last commits in a power cut: an acknowledged credit must not.
    @Test func everyCommitIsSyncedToDisk() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SQLiteLedgerStore(path: directory.appendingPathComponent("ledger.sqlite").path)
            #expect(try await store.synchronousSetting() == 2)
        }
    }

    @Test func aPathInAMissingDirectoryIsATypedError() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("missing/ledger.sqlite").path
            #expect(await storageFailure { _ = try SQLiteLedgerStore(path: path) } != nil)
        }
    }

    @Test func aFileThatIsNotADatabaseIsATypedError() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("ledger.sqlite").path
            try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
            #expect(await storageFailure { _ = try SQLiteLedgerStore(path: path) } != nil)
        }
    }

    @Test func aDirectoryWhereTheFileShouldBeIsATypedError() async throws {
        try await withTemporaryDirectory { directory in
            #expect(await storageFailure { _ = try SQLiteLedgerStore(path: directory.path) } != nil)
        }
    }

    @Test func aFullDatabaseIsATypedErrorAndWritesNoCredit() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("ledger.sqlite").path
            // Two pages beyond the schema: room for a handful of rows only.
            let store = try SQLiteLedgerStore(path: path, sparePages: 2)
            let ledger = Ledger(store: store)
            let bulky = (0..<200).map { receiptTransaction("tx-\($0)", product: String(repeating: "p", count: 400)) }
            let message = try #require(await storageFailure { _ = try await ledger.credit(user: "alice", transactions: bulky) })
            #expect(message.contains("full"))
            // The failed request wrote nothing: no credit, and the sightings were rolled back too.
            #expect(try await ledger.credits(of: "alice").isEmpty)
            #expect(try await ledger.uncredited(olderThan: -1).isEmpty)
            // The store still answers once the input fits.
            #expect(try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
                == CreditOutcome(credited: ["1000"]))
        }
    }

    @Test func aClosedStoreIsATypedError() async throws {
        try await withTemporaryDirectory { directory in
            let store = try SQLiteLedgerStore(path: directory.appendingPathComponent("ledger.sqlite").path)
            try store.close()
            #expect(await storageFailure { _ = try await Ledger(store: store).credits(of: "alice") } != nil)
        }
    }
}
