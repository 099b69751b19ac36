import Foundation
import Testing
import ReceiptLedger

@Suite("Ledger under concurrent credits")
struct ConcurrentCreditTests {
    static let racers = 50

    @Test(arguments: StoreKind.allCases) func fiftyUsersRacingForOneTransactionGiveExactlyOneCredit(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let outcomes = try await Self.race(ledgers: [ledger], requested: nil)
            #expect(outcomes.filter { $0 == CreditOutcome(credited: ["1000"]) }.count == 1)
            #expect(outcomes.filter { $0 == CreditOutcome(conflicts: ["1000"]) }.count == Self.racers - 1)
            try await Self.expectOneHolder(ledger)
        }
    }

    @Test(arguments: StoreKind.allCases) func fiftyUsersRequestingOneTransactionGiveOneCreditAndFortyNineRefusals(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let outcomes = try await Self.race(ledgers: [ledger], requested: "1000")
            #expect(outcomes.filter { $0 == CreditOutcome(credited: ["1000"]) }.count == 1)
            #expect(outcomes.filter { $0 == nil }.count == Self.racers - 1)
            try await Self.expectOneHolder(ledger)
        }
    }

    /// Two stores on one database, as two receipt-server processes would share it: the database's
    /// locking and the unique key decide, not a pool's in-process queue.
    @Test(arguments: StoreKind.allCases) func twoStoresOnOneDatabaseStillGiveExactlyOneCredit(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, database in
            let second = Ledger(store: try await database.openStore())
            let outcomes = try await Self.race(ledgers: [ledger, second], requested: nil)
            #expect(outcomes.filter { $0 == CreditOutcome(credited: ["1000"]) }.count == 1)
            #expect(outcomes.filter { $0 == CreditOutcome(conflicts: ["1000"]) }.count == Self.racers - 1)
            try await Self.expectOneHolder(second)
        }
    }

    /// Each racer is a different user asking for transaction 1000; nil stands for `creditedToAnotherUser`.
    private static func race(ledgers: [Ledger], requested: String?) async throws -> [CreditOutcome?] {
        try await withThrowingTaskGroup(of: CreditOutcome?.self) { group in
            for racer in 0..<racers {
                let ledger = ledgers[racer % ledgers.count]
                group.addTask {
                    do {
                        return try await ledger.credit(
                            user: "user-\(racer)", transactions: [receiptTransaction("1000")], requested: requested)
                    } catch LedgerError.creditedToAnotherUser(transactionId: "1000") {
                        return nil
                    }
                }
            }
            var outcomes: [CreditOutcome?] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    private static func expectOneHolder(_ ledger: Ledger) async throws {
        var holders = 0
        for racer in 0..<racers {
            holders += try await ledger.credits(of: "user-\(racer)").count
        }
        #expect(holders == 1)
    }
}
