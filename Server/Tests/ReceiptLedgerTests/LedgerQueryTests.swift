import Foundation
import Testing
import ReceiptLedger
import ServerTestSupport

@Suite("Ledger queries: missed orders, credits, revocations")
struct LedgerQueryTests {
    @Test(arguments: StoreKind.allCases) func missedOrdersAreTheTransactionsSeenButNeverCreditedAfterTheGivenAge(_ store: StoreKind) async throws {
        let clock = TestClock()
        try await withLedger(store, clock: clock) { ledger, _ in
            try await ledger.record(seen: [receiptTransaction("1000"), receiptTransaction("1001")])
            clock.advance(by: 600)
            try await ledger.record(seen: [receiptTransaction("1002")])
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1001")])
            clock.advance(by: 60)

            // 1000 was first seen 660 s ago, 1002 60 s ago; 1001 is credited.
            let older = try await ledger.uncredited(olderThan: 300)
            #expect(older == [
                SeenTransaction(transaction: receiptTransaction("1000"), firstSeenAt: Date(timeIntervalSince1970: 1_700_000_000)),
            ])
            let all = try await ledger.uncredited(olderThan: 30)
            #expect(all.map(\.transaction.transactionId) == ["1000", "1002"])
            #expect(all.map(\.firstSeenAt) == [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: 1_700_000_600)])
            // "More than": exactly 60 s old is not yet a missed order.
            #expect(try await ledger.uncredited(olderThan: 60).map(\.transaction.transactionId) == ["1000"])
        }
    }

    @Test(arguments: StoreKind.allCases) func theFirstSightingIsKept(_ store: StoreKind) async throws {
        let clock = TestClock()
        try await withLedger(store, clock: clock) { ledger, _ in
            try await ledger.record(seen: [receiptTransaction("1000", product: "first")])
            clock.advance(by: 100)
            try await ledger.record(seen: [receiptTransaction("1000", product: "second")])
            let missed = try await ledger.uncredited(olderThan: 0)
            #expect(missed.count == 1)
            #expect(missed.first?.transaction.productId == "first")
            #expect(missed.first?.firstSeenAt == Date(timeIntervalSince1970: 1_700_000_000))
        }
    }

    @Test(arguments: StoreKind.allCases) func missedOrdersCarryEveryRecordedField(_ store: StoreKind) async throws {
        let token = UUID(uuidString: "9F2C4A8E-6B1D-4E3F-A5C7-0D8B2E6F1A3C")!
        try await withLedger(store) { ledger, _ in
            let transaction = signedTransaction("2000", appAccountToken: token)
            try await ledger.record(seen: [transaction])
            let missed = try await ledger.uncredited(olderThan: -1)
            #expect(missed == [SeenTransaction(transaction: transaction, firstSeenAt: Date(timeIntervalSince1970: 1_700_000_000))])
            #expect(missed.first?.transaction.expiresDate == Date(timeIntervalSince1970: 1_692_592_000))
            #expect(missed.first?.transaction.bundleId == "com.example.app")
            #expect(missed.first?.transaction.source == .jws)
        }
    }

    @Test(arguments: StoreKind.allCases) func creditsOfAUserAreOldestFirstAndOnlyTheirs(_ store: StoreKind) async throws {
        let clock = TestClock()
        try await withLedger(store, clock: clock) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1001")])
            clock.advance(by: 1)
            _ = try await ledger.credit(user: "bob", transactions: [receiptTransaction("1002")])
            clock.advance(by: 1)
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
            #expect(try await ledger.credits(of: "alice").map(\.transactionId) == ["1001", "1000"])
            #expect(try await ledger.credits(of: "alice").map(\.creditedAt)
                == [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: 1_700_000_002)])
            #expect(try await ledger.credits(of: "nobody").isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func revokedCreditsListCreditedTransactionsLaterRevokedKeepingTheFirstRevocation(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000"), receiptTransaction("1001")])
            try await ledger.record(seen: [receiptTransaction("1002")])  // seen, never credited
            let refund = Date(timeIntervalSince1970: 1_700_100_000)
            #expect(try await ledger.markRevoked(transactionId: "1000", at: refund, reason: "REFUND"))
            #expect(try await ledger.markRevoked(transactionId: "1000", at: refund + 50, reason: "REVOKE"))
            #expect(try await ledger.markRevoked(transactionId: "1002", at: refund, reason: "REFUND"))
            #expect(try await ledger.markRevoked(transactionId: "9999", at: refund, reason: "REFUND") == false)

            #expect(try await ledger.revokedCredits() == [
                Credit(
                    transactionId: "1000", user: "alice", creditedAt: Date(timeIntervalSince1970: 1_700_000_000),
                    productId: "com.example.coins100", revokedAt: refund, revocationReason: "REFUND"),
            ])
            #expect(try await ledger.credits(of: "alice").map(\.revokedAt) == [refund, nil])
        }
    }

    @Test(arguments: StoreKind.allCases) func aCancellationInTheInputMarksTheTransactionRevoked(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
            var cancelled = receiptTransaction("1000")
            cancelled.revocationDate = Date(timeIntervalSince1970: 1_700_200_000)
            cancelled.revocationReason = "cancelled in receipt"
            let replay = try await ledger.credit(user: "alice", transactions: [cancelled])
            #expect(replay == CreditOutcome(alreadyCredited: ["1000"]))
            #expect(try await ledger.revokedCredits().map(\.revocationReason) == ["cancelled in receipt"])
            #expect(try await ledger.revokedCredits().map(\.revokedAt) == [Date(timeIntervalSince1970: 1_700_200_000)])
        }
    }

    @Test(arguments: StoreKind.allCases) func everyListingStopsAtItsLimitKeepingItsOrder(_ store: StoreKind) async throws {
        let clock = TestClock()
        try await withLedger(store, clock: clock) { ledger, _ in
            for id in 1000..<1005 {
                try await ledger.record(seen: [receiptTransaction(String(id))])
                clock.advance(by: 1)
            }
            for id in ["1000", "1001", "1002"] {
                _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction(id)])
                _ = try await ledger.markRevoked(transactionId: id, at: clock.now, reason: "REFUND")
                clock.advance(by: 1)
            }
            #expect(try await ledger.uncredited(olderThan: -1, limit: 1).map(\.transaction.transactionId) == ["1003"])
            #expect(try await ledger.credits(of: "alice", limit: 2).map(\.transactionId) == ["1000", "1001"])
            #expect(try await ledger.revokedCredits(limit: 2).map(\.transactionId) == ["1002", "1001"])
            #expect(try await ledger.credits(of: "alice", limit: 0).isEmpty)
            #expect(try await ledger.credits(of: "alice").count == 3)
        }
    }
}
