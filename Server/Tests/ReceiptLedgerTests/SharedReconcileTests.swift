import Foundation
import ReceiptLedger
import ServerTestSupport
import Testing

/// What several servers on one ledger share when they talk to Apple: one reconcile cycle at a
/// time (a lease that a dead server's successor takes over when it runs out), and request budgets
/// reserved in turn under the row's lock.
struct SharedReconcileTests {
    @Test(arguments: StoreKind.allCases) func oneCycleAtATime(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withLedger(kind, clock: clock) { first, database in
            let second = Ledger(store: try await database.openStore(), now: { clock.now })
            #expect(try await first.claimReconcile(by: "a", lease: 60) != nil)
            #expect(try await second.claimReconcile(by: "b", lease: 60) == nil)
            try await first.finishReconcile(by: "a", outcome: ReconcileOutcome(fetched: 2, applied: 1, repeats: 1, checkpoint: clock.now, error: nil))
            let taken = try await second.claimReconcile(by: "b", lease: 60)
            #expect(taken?.checkpoint == Date(timeIntervalSince1970: clock.now.timeIntervalSince1970.rounded(.down)) && taken?.lastApplied == 1)
            // b dies holding the lease: a waits until it runs out.
            #expect(try await first.claimReconcile(by: "a", lease: 60) == nil)
            clock.advance(by: 61)
            #expect(try await first.claimReconcile(by: "a", lease: 60) != nil)
            #expect(try await second.reconcileState()?.leaseHolder == "a")
        }
    }

    /// Forty reservations from two stores at once, each a second after the one before it: every
    /// departure distinct and in order, as if one process had made them.
    @Test(arguments: StoreKind.allCases) func budgetsAreReservedInTurn(_ kind: StoreKind) async throws {
        let clock = TestClock()
        try await withLedger(kind, clock: clock) { first, database in
            let second = Ledger(store: try await database.openStore(), now: { clock.now })
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let departures = try await withThrowingTaskGroup(of: Date?.self) { group in
                for index in 0..<40 {
                    let ledger = index % 2 == 0 ? first : second
                    group.addTask {
                        try await ledger.updateAPIBudget("host Get Transaction Info") { budget in
                            let departure = (budget.departures.last?.addingTimeInterval(1)) ?? start
                            return (APIBudget(departures: Array((budget.departures + [departure]).suffix(3)), blockedUntil: budget.blockedUntil), departure)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(departures.compactMap { $0 }.sorted() == (0..<40).map { start.addingTimeInterval(Double($0)) })
            let until = start.addingTimeInterval(3600)
            _ = try await first.updateAPIBudget("host Get Transaction Info") { budget in
                (APIBudget(departures: budget.departures, blockedUntil: until), nil)
            }
            #expect(try await second.updateAPIBudget("host Get Transaction Info") { ($0, $0.blockedUntil) } == until)
        }
    }
}
