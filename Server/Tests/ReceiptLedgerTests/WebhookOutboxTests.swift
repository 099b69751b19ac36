import Foundation
import ReceiptParser
import Testing
@testable import ReceiptLedger
import ServerTestSupport

/// The webhook outbox: each credit, revocation, reversal and change of a user's entitlement status
/// written in the same transaction as the change; leased to one worker at a time, in order per
/// user; retried, failed for good, and sent again.
@Suite("Ledger webhook outbox")
struct WebhookOutboxTests {
    static let (t0, day) = (LedgerSnapshotTests.t0, LedgerSnapshotTests.day)

    /// The pending events in order, taken one by one as a worker would, each marked delivered.
    static func drain(_ ledger: Ledger) async throws -> [(type: String, user: String, data: [String: Any])] {
        var drained: [(String, String, [String: Any])] = []
        while true {
            let events = try await ledger.claimWebhookEvents(for: "test", lease: 60, limit: 100)
            if events.isEmpty { return drained }
            for event in events {
                let body = try #require(try JSONSerialization.jsonObject(with: Data(event.body)) as? [String: Any])
                #expect(body["type"] as? String == event.type)
                drained.append((event.type, event.user, try #require(body["data"] as? [String: Any])))
                try await ledger.finishWebhookAttempt(event.id, by: "test", delivered: true, retryAt: nil)
            }
        }
    }

    static func notification(_ uuid: String, _ type: NotificationType, signed: Date) -> ServerNotification {
        NotificationLogTests.notification(uuid, type, signed: signed)
    }

    @Test(arguments: StoreKind.allCases) func aCreditARefundAndItsReversalAreEvents(_ store: StoreKind) async throws {
        let clock = TestClock(Self.t0 + Self.day)
        try await withLedger(store, clock: clock, writesWebhookEvents: true) { ledger, _ in
            let bought = try LedgerSnapshotTests.transaction("7", original: "7", bought: Self.t0, expires: Self.t0 + 30 * Self.day, signed: Self.t0)
            let refunded = try LedgerSnapshotTests.transaction("7", original: "7", bought: Self.t0, expires: Self.t0 + 30 * Self.day,
                                                               revoked: Self.t0 + Self.day, signed: Self.t0 + Self.day)
            let reversed = try LedgerSnapshotTests.transaction("7", original: "7", bought: Self.t0, expires: Self.t0 + 30 * Self.day,
                                                               signed: Self.t0 + 2 * Self.day)
            _ = try await ledger.credit(user: "alice", transactions: [try #require(LedgerTransaction(signedTransaction: bought))])
            var events = try await Self.drain(ledger)
            #expect(events.map(\.type) == ["credit.created", "entitlement.changed"])
            #expect(events.allSatisfy { $0.user == "alice" })
            #expect(events[0].data["transactionId"] as? String == "7")
            #expect((events[0].data["cause"] as? [String: Any])?["credit"] != nil)
            #expect(events[1].data["previousStatus"] is NSNull && events[1].data["status"] as? String == "active")
            #expect(events[1].data["entitled"] as? Bool == true && events[1].data["expiresDate"] as? String == "2025-07-15T15:06:40.000Z")

            try await ledger.apply(notification: Self.notification("r1", .refund, signed: Self.t0 + Self.day), transaction: refunded)
            events = try await Self.drain(ledger)
            #expect(events.map(\.type) == ["credit.revoked", "entitlement.changed"])
            #expect(events[1].data["previousStatus"] as? String == "active" && events[1].data["status"] as? String == "revoked")
            let cause = try #require(events[1].data["cause"] as? [String: Any])
            #expect(cause["notificationUUID"] as? String == "r1" && cause["notificationType"] as? String == "REFUND")

            try await ledger.apply(notification: Self.notification("r2", .refundReversed, signed: Self.t0 + 2 * Self.day), transaction: reversed)
            #expect(try await Self.drain(ledger).map(\.type) == ["credit.restored", "entitlement.changed"])
            // The REFUND again, late: nothing changes, nothing is sent.
            try await ledger.apply(notification: Self.notification("r1", .refund, signed: Self.t0 + Self.day), transaction: refunded)
            #expect(try await Self.drain(ledger).isEmpty)
            // Without a change nothing either: the same credit asked again.
            _ = try await ledger.credit(user: "alice", transactions: [try #require(LedgerTransaction(signedTransaction: bought))])
            #expect(try await Self.drain(ledger).isEmpty)
        }
    }

    /// A store that does not write events writes none.
    @Test func aStoreWithoutWebhooksWritesNoEvents() async throws {
        try await withLedger(.sqlite) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1")])
            #expect(try await Self.drain(ledger).isEmpty)
        }
    }

    /// In order per user: a user's second event waits while their first is pending, even in
    /// backoff; another user's events go meanwhile. A last failure lists the event as failed, and
    /// a retry sends it again with the same id and body.
    @Test(arguments: StoreKind.allCases) func orderPerUserRetriesAndFailures(_ store: StoreKind) async throws {
        let clock = TestClock(Self.t0)
        try await withLedger(store, clock: clock, writesWebhookEvents: true) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1")])
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("2")])
            _ = try await ledger.credit(user: "bob", transactions: [receiptTransaction("3")])
            let first = try await ledger.claimWebhookEvents(for: "w1", lease: 30, limit: 10)
            #expect(first.map(\.user) == ["alice", "bob"])
            // Leased: another worker gets nothing meanwhile.
            #expect(try await ledger.claimWebhookEvents(for: "w2", lease: 30, limit: 10).isEmpty)
            try await ledger.finishWebhookAttempt(first[1].id, by: "w1", delivered: true, retryAt: nil)
            try await ledger.finishWebhookAttempt(first[0].id, by: "w1", delivered: false, error: "HTTP 500", retryAt: Self.t0 + 5)
            // Alice's first is in backoff: her second waits too.
            #expect(try await ledger.claimWebhookEvents(for: "w2", lease: 30, limit: 10).isEmpty)
            clock.advance(by: 5)
            let again = try await ledger.claimWebhookEvents(for: "w2", lease: 30, limit: 10)
            #expect(again.map(\.id) == [first[0].id] && again.first?.body == first[0].body && again.first?.attempts == 1)
            try await ledger.finishWebhookAttempt(first[0].id, by: "w2", delivered: false, error: "timed out", retryAt: nil)
            let failed = try await ledger.failedWebhookEvents()
            #expect(failed.map(\.id) == [first[0].id] && failed.first?.lastError == "timed out" && failed.first?.attempts == 2)
            // Failed for good, it no longer holds her next event back.
            let next = try await ledger.claimWebhookEvents(for: "w2", lease: 30, limit: 10)
            #expect(next.map(\.user) == ["alice"] && next.first?.id != first[0].id)
            try await ledger.finishWebhookAttempt(next[0].id, by: "w2", delivered: true, retryAt: nil)
            #expect(try await ledger.retryWebhookEvent(first[0].id))
            #expect(try await ledger.retryWebhookEvent("msg_unknown") == false)
            let retried = try await ledger.claimWebhookEvents(for: "w3", lease: 30, limit: 10)
            #expect(retried.map(\.id) == [first[0].id] && retried.first?.body == first[0].body)
            #expect(try await ledger.failedWebhookEvents().isEmpty)
        }
    }

    /// A lease that ran out (its worker was killed) is taken over; the id stays the same.
    @Test(arguments: StoreKind.allCases) func anExpiredLeaseIsTakenOver(_ store: StoreKind) async throws {
        let clock = TestClock(Self.t0)
        try await withLedger(store, clock: clock, writesWebhookEvents: true) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1")])
            let leased = try await ledger.claimWebhookEvents(for: "killed", lease: 30, limit: 10)
            #expect(leased.count == 1)
            clock.advance(by: 31)
            #expect(try await ledger.claimWebhookEvents(for: "restarted", lease: 30, limit: 10).map(\.id) == leased.map(\.id))
            // The killed worker's late answer changes nothing: the lease is no longer its own.
            try await ledger.finishWebhookAttempt(leased[0].id, by: "killed", delivered: true, retryAt: nil)
            clock.advance(by: 31)
            #expect(try await ledger.claimWebhookEvents(for: "third", lease: 30, limit: 10).map(\.id) == leased.map(\.id))
        }
    }

    /// Two workers on one database (two servers) claiming at once: each event goes to one.
    @Test(arguments: StoreKind.allCases) func twoWorkersClaimEachEventOnce(_ store: StoreKind) async throws {
        let clock = TestClock()
        try await withLedger(store, clock: clock, writesWebhookEvents: true) { ledger, database in
            for index in 0..<40 { _ = try await ledger.credit(user: "user-\(index)", transactions: [receiptTransaction("\(index)")]) }
            let second = Ledger(store: try await database.openStore(writesWebhookEvents: true), now: { clock.now })
            async let a = ledger.claimWebhookEvents(for: "a", lease: 60, limit: 50)
            async let b = second.claimWebhookEvents(for: "b", lease: 60, limit: 50)
            let (claimedByA, claimedByB) = try await (a, b)
            #expect(Set(claimedByA.map(\.id)).isDisjoint(with: claimedByB.map(\.id)))
            // Each user's first event (its credit) is out; the rest wait behind them.
            #expect(claimedByA.count + claimedByB.count == 40)
        }
    }

    /// A claim stopped before its commit holds alice's event; another server's claim takes bob's at
    /// once instead of waiting for it (PostgreSQL's SKIP LOCKED; SQLite has one writer). A claim
    /// that waited for one event while it held another could close a circle with a finish, which
    /// PostgreSQL breaks by failing one of them.
    @Test func aClaimPassesOverTheEventsAnotherClaimHolds() async throws {
        let clock = TestClock(Self.t0)
        try await withLedger(.postgres, clock: clock, writesWebhookEvents: true) { ledger, database in
            for (index, user) in ["alice", "bob"].enumerated() {
                _ = try await ledger.credit(user: user, transactions: [receiptTransaction("\(index)")])
            }
            let (first, holding, released) = try await Self.ledger(on: database, clock: clock,
                                                                   pausedAfter: "UPDATE ledger_webhook_events SET claimed_by")
            async let held = first.claimWebhookEvents(for: "a", lease: 60, limit: 1)
            try await until { holding.isSet }
            // Let go after a while whatever happens, so that a claim that waits fails this test, not hangs it.
            let release = Task { try await Task.sleep(for: .seconds(3)); released.set() }
            let taken = try await ledger.claimWebhookEvents(for: "b", lease: 60, limit: 10)
            let tookWhileHeld = !released.isSet
            released.set()
            release.cancel()
            let heldEvents = try await held
            #expect(tookWhileHeld)
            #expect(heldEvents.map(\.user) == ["alice"])
            #expect(taken.map(\.user) == ["bob"])
        }
    }

    /// A ledger on another store of `database` whose transactions stop after a statement containing
    /// `statement`, before their commit, until `released` is set; `reached` tells when one has.
    static func ledger(on database: TestDatabase, clock: TestClock, pausedAfter statement: String) async throws
        -> (ledger: Ledger, reached: Flag, released: Flag) {
        let (reached, released) = (Flag(), Flag())
        let other = try #require(try await database.openStore(writesWebhookEvents: true) as? DatabaseLedgerStore)
        let paused = RecordingDriver(inner: other.driver, log: StatementLog()) { sql in
            guard sql.contains(statement) else { return }
            reached.set()
            while !released.isSet { usleep(1_000) }
        }
        return (Ledger(store: DatabaseLedgerStore(driver: paused, writesWebhookEvents: true), now: { clock.now }), reached, released)
    }

    /// Each pending event's next attempt, by user, in id order: nil where it waits behind an
    /// earlier event of its user (`LedgerSQL.waitingBehindEarlierEvent`).
    static func queues(_ ledger: Ledger) async throws -> [String: [Int64?]] {
        let store = try #require(ledger.store as? DatabaseLedgerStore)
        let rows = try await store.driver.read { connection in
            try connection.execute("SELECT user_id, next_attempt_at_ms FROM ledger_webhook_events WHERE state = 'pending' ORDER BY event_id", []).rows
        }
        return try Dictionary(grouping: rows, by: { try $0.requiredText(0) }).mapValues { rows in
            try rows.map { row in
                let next = try row.requiredInteger(1)
                return next == LedgerSQL.waitingBehindEarlierEvent ? nil : next
            }
        }
    }

    /// A user's events behind their first pending one wait, so that claims do not read them (the
    /// due index holds only the first); whatever ends the first (delivery, a last failure) makes
    /// the next one due at that instant, and a retry in backoff keeps the rest waiting.
    @Test(arguments: StoreKind.allCases) func eventsBehindAPendingOneWaitUntilItEnds(_ store: StoreKind) async throws {
        let clock = TestClock(Self.t0)
        try await withLedger(store, clock: clock, writesWebhookEvents: true) { ledger, _ in
            let now = LedgerDate.milliseconds(Self.t0)
            for id in ["1", "2", "3"] { _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction(id)]) }
            _ = try await ledger.credit(user: "bob", transactions: [receiptTransaction("4")])
            #expect(try await Self.queues(ledger) == ["alice": [now, nil, nil], "bob": [now]])

            let first = try await ledger.claimWebhookEvents(for: "w", lease: 30, limit: 10)
            #expect(first.map(\.user) == ["alice", "bob"])
            try await ledger.finishWebhookAttempt(first[1].id, by: "w", delivered: true, retryAt: nil)
            try await ledger.finishWebhookAttempt(first[0].id, by: "w", delivered: false, error: "HTTP 503", retryAt: Self.t0 + 60)
            #expect(try await Self.queues(ledger)["alice"] == [now + 60_000, nil, nil])
            clock.advance(by: 60)
            let retried = try await ledger.claimWebhookEvents(for: "w", lease: 30, limit: 10)
            #expect(retried.map(\.id) == [first[0].id])
            try await ledger.finishWebhookAttempt(retried[0].id, by: "w", delivered: true, retryAt: nil)
            #expect(try await Self.queues(ledger)["alice"] == [now + 60_000, nil])
            let second = try await ledger.claimWebhookEvents(for: "w", lease: 30, limit: 10)
            #expect(second.map(\.user) == ["alice"])
            try await ledger.finishWebhookAttempt(second[0].id, by: "w", delivered: false, error: "HTTP 410", retryAt: nil)
            #expect(try await Self.queues(ledger)["alice"] == [now + 60_000])
            #expect(try await Self.drain(ledger).count == 1)  // alice's third
        }
    }

    /// A database written before events waited (v6): its events behind a pending one are made to
    /// wait by the upgrade, and all still go, in order.
    @Test(arguments: StoreKind.allCases) func anUpgradeMakesTheEventsBehindAPendingOneWait(_ store: StoreKind) async throws {
        let clock = TestClock(Self.t0)
        try await withLedger(store, clock: clock, writesWebhookEvents: true) { ledger, database in
            for id in ["1", "2", "3"] { _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction(id)]) }
            let current = try #require(ledger.store as? DatabaseLedgerStore)
            let now = LedgerDate.milliseconds(Self.t0)
            try await current.driver.write { connection in
                _ = try connection.execute("UPDATE ledger_webhook_events SET next_attempt_at_ms = \(now)", [])
                _ = try connection.execute("DELETE FROM ledger_schema_migrations WHERE identifier = 'v7-webhook-waiting'", [])
            }
            #expect(try await Self.queues(ledger) == ["alice": [now, now, now]])
            let upgraded = Ledger(store: try await database.openStore(writesWebhookEvents: true), now: { clock.now })
            #expect(try await Self.queues(upgraded) == ["alice": [now, nil, nil]])
            #expect(try await Self.drain(upgraded).map { $0.data["transactionId"] as? String } == ["1", "2", "3"])
        }
    }

    /// Finishes an event as a server older than v7 did: without making the next one of its user due.
    static func finishWithoutMovingOn(_ id: String, in ledger: Ledger) async throws {
        let store = try #require(ledger.store as? DatabaseLedgerStore)
        try await store.driver.write { connection in
            _ = try connection.execute("UPDATE ledger_webhook_events SET state = 'delivered', claimed_by = NULL WHERE event_id = '\(id)'", [])
        }
    }

    /// Events that an older server left waiting behind nothing are made due by the sweep, chunk
    /// by chunk, and only they: an event behind a pending one keeps waiting, and the order holds.
    @Test(arguments: StoreKind.allCases) func theSweepReleasesEventsStrandedBehindNothing(_ store: StoreKind) async throws {
        let clock = TestClock(Self.t0)
        try await withLedger(store, clock: clock, writesWebhookEvents: true) { ledger, _ in
            let now = LedgerDate.milliseconds(Self.t0)
            for id in ["1", "2", "3"] { _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction(id)]) }
            for id in ["4", "5"] { _ = try await ledger.credit(user: "bob", transactions: [receiptTransaction(id)]) }
            let first = try await ledger.claimWebhookEvents(for: "w", lease: 30, limit: 10)
            #expect(first.map(\.user) == ["alice", "bob"])
            try await Self.finishWithoutMovingOn(first[0].id, in: ledger)
            #expect(try await Self.queues(ledger) == ["alice": [nil, nil], "bob": [now, nil]])
            #expect(try await ledger.claimWebhookEvents(for: "other", lease: 30, limit: 10).isEmpty)

            clock.advance(by: 5)
            var cursor: String?
            var released: [Int] = []
            repeat {
                let step = try await ledger.releaseStrandedWebhookEvents(after: cursor, limit: 1)
                (cursor, released) = (step.cursor, released + [step.released])
            } while cursor != nil
            // One waiting event per chunk (alice's second and third, bob's second), then the end.
            #expect(released == [1, 0, 0, 0])
            #expect(try await Self.queues(ledger) == ["alice": [now + 5_000, nil], "bob": [now, nil]])
            try await ledger.finishWebhookAttempt(first[1].id, by: "w", delivered: true, retryAt: nil)
            #expect(try await Self.drain(ledger).map { $0.data["transactionId"] as? String } == ["2", "5", "3"])
        }
    }

    /// An event written while the one before it is being finished on another connection: the
    /// finisher waits for the write's queue lock, then sees the new event and makes it due
    /// (PostgreSQL; SQLite runs the two one after the other anyway). Without the lock the finish
    /// commits first and the new event waits behind nothing, for ever.
    @Test(arguments: StoreKind.allCases) func anEventWrittenWhileTheOneBeforeItEndsIsMadeDue(_ store: StoreKind) async throws {
        let clock = TestClock(Self.t0)
        try await withLedger(store, clock: clock, writesWebhookEvents: true) { ledger, database in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1")])
            let claimed = try await ledger.claimWebhookEvents(for: "w", lease: 60, limit: 10)
            try #require(claimed.count == 1)
            // The second write stops after writing its event, before its commit, until released.
            let (writer, inserted, released) = try await Self.ledger(on: database, clock: clock,
                                                                     pausedAfter: "INSERT INTO ledger_webhook_events")
            async let written = writer.credit(user: "alice", transactions: [receiptTransaction("2")])
            try await until { inserted.isSet }
            async let finished: Void = ledger.finishWebhookAttempt(claimed[0].id, by: "w", delivered: true, retryAt: nil)
            try await Task.sleep(for: .milliseconds(200))  // the finish's time to run, where it can
            released.set()
            _ = try await (written, finished)
            #expect(try await Self.queues(ledger) == ["alice": [LedgerDate.milliseconds(Self.t0)]])
            #expect(try await Self.drain(ledger).count == 1)
        }
    }

    /// A write that fails writes no event either.
    @Test func aFailedWriteLeavesNoEvent() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("ledger.sqlite").path
            let store = try SQLiteLedgerStore(path: path, sparePages: 2, writesWebhookEvents: true)
            let ledger = Ledger(store: store)
            let bulky = (0..<200).map { receiptTransaction("tx-\($0)", product: String(repeating: "p", count: 400)) }
            _ = await storageFailure { _ = try await ledger.credit(user: "alice", transactions: bulky) }
            #expect(try await ledger.claimWebhookEvents(for: "w", lease: 30, limit: 10).isEmpty)
            try store.close()
        }
    }
}
