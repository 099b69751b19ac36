import Foundation
import Testing
import ReceiptLedger
import ServerTestSupport

@Suite("Ledger credit rules")
struct CreditRuleTests {
    @Test(arguments: StoreKind.allCases) func creditsEveryTransactionOfTheInputOnceThenReportsThemAsAlreadyCredited(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let input = [receiptTransaction("1000"), receiptTransaction("1001")]
            let first = try await ledger.credit(user: "alice", transactions: input)
            #expect(first == CreditOutcome(credited: ["1000", "1001"]))
            let replay = try await ledger.credit(user: "alice", transactions: input)
            #expect(replay == CreditOutcome(alreadyCredited: ["1000", "1001"]))
        }
    }

    @Test(arguments: StoreKind.allCases) func creditsOnlyTheNewTransactionsOfAGrowingReceipt(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
            let later = try await ledger.credit(
                user: "alice", transactions: [receiptTransaction("1000"), receiptTransaction("1001")])
            #expect(later == CreditOutcome(credited: ["1001"], alreadyCredited: ["1000"]))
        }
    }

    @Test(arguments: StoreKind.allCases) func aSharedReceiptListsTheOtherUsersTransactionsAsConflicts(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
            let bob = try await ledger.credit(
                user: "bob", transactions: [receiptTransaction("1000"), receiptTransaction("1001")])
            #expect(bob == CreditOutcome(credited: ["1001"], conflicts: ["1000"]))
            #expect(try await ledger.credits(of: "alice").map(\.transactionId) == ["1000"])
            #expect(try await ledger.credits(of: "bob").map(\.transactionId) == ["1001"])
        }
    }

    @Test(arguments: StoreKind.allCases) func aRequestedTransactionIsTheOnlyOneCredited(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let input = [receiptTransaction("1000"), receiptTransaction("1001")]
            let outcome = try await ledger.credit(user: "alice", transactions: input, requested: "1001")
            #expect(outcome == CreditOutcome(credited: ["1001"]))
            let again = try await ledger.credit(user: "alice", transactions: input, requested: "1001")
            #expect(again == CreditOutcome(alreadyCredited: ["1001"]))
            // Both were recorded as seen; the one not asked for is still owed.
            let missed = try await ledger.uncredited(olderThan: -1)
            #expect(missed.map(\.transaction.transactionId) == ["1000"])
        }
    }

    @Test(arguments: StoreKind.allCases) func aRequestedTransactionNotInTheInputIsRefusedButTheInputIsStillSeen(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            await #expect(throws: LedgerError.transactionNotInInput(transactionId: "9999")) {
                try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")], requested: "9999")
            }
            let credits = try await ledger.credits(of: "alice")
            let missed = try await ledger.uncredited(olderThan: -1)
            #expect(credits.isEmpty)
            #expect(missed.map(\.transaction.transactionId) == ["1000"])
        }
    }

    @Test(arguments: StoreKind.allCases) func aRequestedTransactionHeldByAnotherUserIsAnError(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
            await #expect(throws: LedgerError.creditedToAnotherUser(transactionId: "1000")) {
                try await ledger.credit(user: "bob", transactions: [receiptTransaction("1000")], requested: "1000")
            }
            #expect(try await ledger.credits(of: "alice").map(\.transactionId) == ["1000"])
            #expect(try await ledger.credits(of: "bob").isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func anEmptyInputCreditsNothing(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let outcome = try await ledger.credit(user: "alice", transactions: [])
            #expect(outcome == CreditOutcome())
        }
    }

    @Test(arguments: StoreKind.allCases) func aTransactionListedTwiceInOneInputIsCreditedOnce(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let outcome = try await ledger.credit(
                user: "alice", transactions: [receiptTransaction("1000"), receiptTransaction("1000")])
            #expect(outcome == CreditOutcome(credited: ["1000"]))
        }
    }

    @Test(arguments: StoreKind.allCases) func creditsRecordWhenAndWhatWasCredited(_ store: StoreKind) async throws {
        let clock = TestClock()
        try await withLedger(store, clock: clock) { ledger, _ in
            clock.advance(by: 5)
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000", product: "gems")])
            #expect(try await ledger.credits(of: "alice") == [
                Credit(transactionId: "1000", user: "alice", creditedAt: Date(timeIntervalSince1970: 1_700_000_005), productId: "gems"),
            ])
        }
    }

    /// A refund reaches the ledger before the app reports the purchase (a receipt's cancellation
    /// date, a REFUND notification): the transaction is never credited, to anyone.
    @Test(arguments: StoreKind.allCases) func aTransactionRevokedBeforeAnyCreditIsNeverCredited(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            var cancelled = receiptTransaction("1000")
            cancelled.revocationDate = Date(timeIntervalSince1970: 1_700_100_000)
            cancelled.revocationReason = "cancelled in receipt"
            let input = [cancelled, receiptTransaction("1001")]
            #expect(try await ledger.credit(user: "alice", transactions: input) == CreditOutcome(credited: ["1001"], revoked: ["1000"]))
            #expect(try await ledger.credit(user: "bob", transactions: input) == CreditOutcome(conflicts: ["1001"], revoked: ["1000"]))
            await #expect(throws: LedgerError.transactionRevoked(transactionId: "1000")) {
                try await ledger.credit(user: "alice", transactions: input, requested: "1000")
            }

            // Revoked by a notification first, then reported by the app without its cancellation.
            try await ledger.record(seen: [receiptTransaction("1002")])
            #expect(try await ledger.markRevoked(transactionId: "1002", at: Date(timeIntervalSince1970: 1_700_200_000), reason: "REFUND"))
            #expect(try await ledger.credit(user: "alice", transactions: [receiptTransaction("1002")]) == CreditOutcome(revoked: ["1002"]))

            #expect(try await ledger.credits(of: "alice").map(\.transactionId) == ["1001"])
            #expect(try await ledger.credits(of: "bob").isEmpty)
            #expect(try await ledger.revokedCredits().isEmpty)
            // Never credited, so still listed with the missed orders, with its revocation, for a person to see.
            #expect(try await ledger.uncredited(olderThan: -1).map(\.revocationReason) == ["cancelled in receipt", "REFUND"])
        }
    }

    /// A revocation after the credit does not undo it: the credit is listed for claw-back instead.
    @Test(arguments: StoreKind.allCases) func aRevocationAfterTheCreditKeepsTheCreditForClawBack(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
            #expect(try await ledger.markRevoked(transactionId: "1000", at: Date(timeIntervalSince1970: 1_700_200_000), reason: "REFUND"))
            #expect(try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")]) == CreditOutcome(alreadyCredited: ["1000"]))
            #expect(try await ledger.credit(user: "bob", transactions: [receiptTransaction("1000")]) == CreditOutcome(conflicts: ["1000"]))
            #expect(try await ledger.revokedCredits().map(\.transactionId) == ["1000"])
        }
    }

    /// REFUND_REVERSED: the credit leaves the claw-back list; a transaction refunded before any
    /// credit can be credited once the refund is reversed.
    @Test(arguments: StoreKind.allCases) func aReversedRefundClearsTheRevocation(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            _ = try await ledger.credit(user: "alice", transactions: [receiptTransaction("1000")])
            #expect(try await ledger.markRevoked(transactionId: "1000", at: Date(timeIntervalSince1970: 1_700_200_000), reason: "REFUND"))
            #expect(try await ledger.revokedCredits().map(\.transactionId) == ["1000"])
            #expect(try await ledger.clearRevocation(transactionId: "1000"))
            #expect(try await ledger.revokedCredits().isEmpty)
            #expect(try await ledger.credits(of: "alice").map(\.revokedAt) == [nil])

            try await ledger.record(seen: [receiptTransaction("1001")])
            #expect(try await ledger.markRevoked(transactionId: "1001", at: Date(timeIntervalSince1970: 1_700_200_000), reason: "REFUND"))
            #expect(try await ledger.credit(user: "bob", transactions: [receiptTransaction("1001")]) == CreditOutcome(revoked: ["1001"]))
            #expect(try await ledger.clearRevocation(transactionId: "1001"))
            #expect(try await ledger.credit(user: "bob", transactions: [receiptTransaction("1001")]) == CreditOutcome(credited: ["1001"]))
            #expect(try await ledger.clearRevocation(transactionId: "9999") == false)
        }
    }
}
