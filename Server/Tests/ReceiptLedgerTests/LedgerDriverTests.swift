import Foundation
import Testing
@testable import ReceiptLedger

/// The store's operations are written once over `LedgerDriver`: each database runs the same
/// statements, in the same order, with only the placeholders spelt its own way.
@Suite("One store implementation over each database's driver")
struct LedgerDriverTests {
    @Test func placeholdersAreRenderedPerDatabase() {
        let sql = "UPDATE t SET a = ?, b = ? WHERE c = ?"
        #expect(LedgerPlaceholders.questionMarks.render(sql) == sql)
        #expect(LedgerPlaceholders.numbered.render(sql) == "UPDATE t SET a = $1, b = $2 WHERE c = $3")
        // Past nine, and with text that is not ASCII around them (the walk is by byte).
        let eleven = "INSERT INTO t VALUES (" + Array(repeating: "?", count: 11).joined(separator: ", ") + ") -- é\u{301}?"
        #expect(LedgerPlaceholders.numbered.render(eleven)
            == "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) -- é\u{301}$12")
    }

    /// A credit of three transactions given out of order: sightings, owners and credits are written
    /// in key order on both databases (so that overlapping requests wait instead of deadlocking), the
    /// bindings are checked and the claims answered in the order asked.
    @Test(arguments: StoreKind.allCases) func aCreditRunsTheSameStatementsInKeyOrderOnEveryDatabase(_ kind: StoreKind) async throws {
        try await withLedger(kind) { ledger, _ in
            let (recorded, log) = try Self.recording(ledger)
            let outcome = try await recorded.credit(
                user: "alice", transactions: ["1002", "1000", "1001"].map { receiptTransaction($0) })
            #expect(outcome == CreditOutcome(credited: ["1002", "1000", "1001"]))

            let placeholders = Self.placeholders(kind)
            let expected = [LedgerSQL.insertSeen, LedgerSQL.subscriptionTokens, LedgerSQL.claimSubscription, LedgerSQL.insertCredit,
                            LedgerSQL.claimState]
                .flatMap { Array(repeating: placeholders.render($0), count: 3) }
            #expect(log.statements == expected)
            #expect(log.values(of: placeholders.render(LedgerSQL.insertSeen), at: 0) == ["1000", "1001", "1002"].map(LedgerValue.text))
            #expect(log.values(of: placeholders.render(LedgerSQL.insertCredit), at: 2) == ["1000", "1001", "1002"].map(LedgerValue.text))
            #expect(log.values(of: placeholders.render(LedgerSQL.subscriptionTokens), at: 0) == ["1002", "1000", "1001"].map(LedgerValue.text))
            #expect(log.values(of: placeholders.render(LedgerSQL.claimSubscription), at: 2) == ["1000", "1001", "1002"].map(LedgerValue.text))
            #expect(log.values(of: placeholders.render(LedgerSQL.claimState), at: 0) == ["1002", "1000", "1001"].map(LedgerValue.text))
        }
    }

    /// Text holding U+0000 (SQLite would keep it, PostgreSQL refuse it as not UTF-8) is refused
    /// before either database sees it, with the same typed error on both, writing nothing; so is a
    /// read that names such text.
    @Test(arguments: StoreKind.allCases) func textHoldingNULIsRefusedTheSameOnEveryDatabase(_ kind: StoreKind) async throws {
        try await withLedger(kind) { ledger, _ in
            let (recorded, log) = try Self.recording(ledger)
            await #expect(throws: LedgerError.unstorableText) {
                try await recorded.credit(user: "alice", transactions: [receiptTransaction("1000"), receiptTransaction("1001", product: "coins\u{0}100")])
            }
            await #expect(throws: LedgerError.unstorableText) { try await recorded.credits(of: "a\u{0}b") }
            #expect(log.statements.contains(Self.placeholders(kind).render(LedgerSQL.insertSeen)))
            #expect(!log.values.contains { if case .text(let text?) = $0 { text.utf8.contains(0) } else { false } })
            #expect(try await ledger.uncredited(olderThan: -1).isEmpty)
            #expect(try await ledger.credits(of: "alice").isEmpty)
        }
    }

    /// A SQLite ledger written before such text was refused may hold some. With webhooks on,
    /// binding a token of such a subscription looks its key up again for the outbox: refused the
    /// same way (422 at `PUT /v1/users/{user}`, as documented), and nothing is bound. Without
    /// webhooks nothing looks the key up, and the binding is made.
    @Test(arguments: [false, true]) func bindingOverEarlierTextHoldingNULIsRefusedWithWebhooks(_ webhooks: Bool) async throws {
        try await withLedger(.sqlite, writesWebhookEvents: webhooks) { ledger, _ in
            let store = try #require(ledger.store as? DatabaseLedgerStore)
            let token = UUID()
            let id = LedgerValue.text("2000\u{0}1")
            // As an earlier version wrote it: past the check, straight to the connection.
            _ = try await store.driver.write { connection in
                try connection.execute("""
                    INSERT INTO ledger_transactions (transaction_id, original_transaction_id, subscription_key, environment, source,
                        app_account_token, first_seen_at_ms) VALUES (?, ?, ?, 'Production', 'jws', ?, 0)
                    """, [id, id, id, .text(token.uuidString.lowercased())])
            }
            if webhooks {
                await #expect(throws: LedgerError.unstorableText) { try await ledger.bind(user: "alice", appAccountToken: token) }
                #expect(try await ledger.appAccountToken(of: "alice") == nil)
            } else {
                try await ledger.bind(user: "alice", appAccountToken: token)
                #expect(try await ledger.appAccountToken(of: "alice") == token.uuidString.lowercased())
            }
        }
    }

    /// Key order is by bytes: the same order on every database and for every request, whatever
    /// Swift's own comparison says of two spellings of one character.
    @Test func keyOrderComparesBytesAndKeepsTheInputOrderOfEqualKeys() {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        #expect(composed == decomposed)
        let keys = [composed, "b", decomposed, "a", "b"]
        let ordered = DatabaseLedgerStore.inKeyOrder(Array(keys.enumerated()), key: \.element)
        #expect(ordered.map(\.offset) == [3, 1, 4, 2, 0])
    }

    /// The migrations take the driver's lock first: PostgreSQL's advisory lock, nothing on SQLite
    /// (its BEGIN IMMEDIATE transaction excludes other writers from the start).
    @Test(arguments: StoreKind.allCases) func migrationsTakeTheDriversLockFirst(_ kind: StoreKind) async throws {
        try await withLedger(kind) { ledger, _ in
            let log = StatementLog()
            let store = try #require(ledger.store as? DatabaseLedgerStore)
            let recording = RecordingDriver(inner: store.driver, log: log)
            try await recording.write { connection in try LedgerMigrator.apply(on: connection, lockedBy: recording.migrationLock) }
            let placeholders = Self.placeholders(kind)
            let lock = kind == .postgres ? [placeholders.render("SELECT pg_advisory_xact_lock(?)")] : []
            // Applied already: the lock, the bookkeeping table, the applied steps, and nothing else.
            #expect(log.statements == lock + [LedgerSQL.createMigrationsTable, LedgerSQL.appliedMigrations].map(placeholders.render))
        }
    }

    private static func placeholders(_ kind: StoreKind) -> LedgerPlaceholders {
        switch kind {
        case .sqlite: .questionMarks
        case .postgres: .numbered
        }
    }

    /// A ledger over the same database as `ledger`, whose statements are logged.
    private static func recording(_ ledger: Ledger) throws -> (Ledger, StatementLog) {
        let store = try #require(ledger.store as? DatabaseLedgerStore)
        let log = StatementLog()
        return (Ledger(store: DatabaseLedgerStore(driver: RecordingDriver(inner: store.driver, log: log))), log)
    }
}

/// SQLite's writes commit in groups: those waiting for the writer share one synced transaction;
/// when one of them fails, each is run again on its own, so it takes nothing of the others with it.
@Suite("SQLite's group commit")
struct SQLiteGroupCommitTests {
    @Test func concurrentWritesShareCommitsAndFailAlone() async throws {
        try await withLedger(.sqlite) { ledger, _ in
            let store = try #require(ledger.store as? DatabaseLedgerStore)
            let driver = try #require(store.driver as? SQLiteLedgerDriver)
            try await driver.write { connection in
                _ = try connection.execute("CREATE TABLE grouped (key TEXT PRIMARY KEY)", [])
                _ = try connection.execute("INSERT INTO grouped VALUES ('taken')", [])
            }
            /// `writes` concurrent inserts; those `failing` then break a constraint, so their own
            /// insert must go too. Answers how many failed.
            func insert(_ writes: Range<Int>, failing: @escaping @Sendable (Int) -> Bool) async throws -> Int {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in writes {
                        group.addTask {
                            do {
                                try await driver.write { connection in
                                    _ = try connection.execute("INSERT INTO grouped VALUES (?)", [.text("key-\(index)")])
                                    if failing(index) { _ = try connection.execute("INSERT INTO grouped VALUES ('taken')", []) }
                                }
                                return false
                            } catch {
                                return true
                            }
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            }
            let commitsBefore = driver.groupCommit.commits
            #expect(try await insert(0..<200, failing: { _ in false }) == 0)
            let commits = driver.groupCommit.commits - commitsBefore
            #expect(commits >= 1 && commits < 100, "\(commits) commits for 200 writes")

            #expect(try await insert(200..<400, failing: { $0 % 10 == 0 }) == 20)
            let keys = try await driver.read { connection in
                try connection.execute("SELECT key FROM grouped WHERE key <> 'taken'", []).rows.map { try $0.requiredText(0) }
            }
            #expect(Set(keys) == Set((0..<400).filter { $0 < 200 || $0 % 10 != 0 }.map { "key-\($0)" }) && keys.count == 380)
        }
    }

    /// A caller hears of its write from the turn that committed it: "third", committed with
    /// "second", does not wait for "last", a slow write queued while they committed.
    @Test func aCommittedWriteDoesNotWaitForTheWritesQueuedAfterIt() async throws {
        try await withLedger(.sqlite) { ledger, _ in
            let store = try #require(ledger.store as? DatabaseLedgerStore)
            let driver = try #require(store.driver as? SQLiteLedgerDriver)
            let groupCommit = driver.groupCommit
            try await driver.write { connection in _ = try connection.execute("CREATE TABLE turns (key TEXT PRIMARY KEY)", []) }
            // The writes wait on the writer's thread (semaphores); the test polls, off it.
            let firstMayEnd = DispatchSemaphore(value: 0), lastMayEnd = DispatchSemaphore(value: 0)
            let firstRuns = Flag(), secondRuns = Flag(), thirdDone = Flag()
            /// Inserts `key`; `during` runs first, on the writer, inside the turn's transaction.
            @Sendable func insert(_ key: String, during: @escaping @Sendable () -> Void = {}) async throws {
                try await driver.write { connection in
                    during()
                    _ = try connection.execute("INSERT INTO turns VALUES (?)", [.text(key)])
                }
            }

            let first = Task { try await insert("first") { firstRuns.set(); firstMayEnd.wait() } }
            try await until { firstRuns.isSet }
            let second = Task {
                try await insert("second") {
                    secondRuns.set()
                    let deadline = Date().addingTimeInterval(10)
                    while groupCommit.waiting < 1 && Date() < deadline { usleep(1_000) }  // "last" queued behind this turn
                }
            }
            let third = Task { try await insert("third"); thirdDone.set() }
            try await until { groupCommit.waiting == 2 }
            firstMayEnd.signal()
            try await until { secondRuns.isSet }
            let last = Task { try await insert("last") { lastMayEnd.wait() } }

            try await until { thirdDone.isSet }
            let thirdHeardWhileLastHeld = thirdDone.isSet
            lastMayEnd.signal()
            for write in [first, second, third, last] { try await write.value }
            #expect(thirdHeardWhileLastHeld, "the caller of \"third\" waited for \"last\", queued after its commit")
            let keys = try await driver.read { connection in
                try connection.execute("SELECT key FROM turns ORDER BY key", []).rows.map { try $0.requiredText(0) }
            }
            #expect(keys == ["first", "last", "second", "third"])
        }
    }
}
