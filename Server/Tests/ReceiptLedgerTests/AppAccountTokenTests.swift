import Foundation
import Testing
import ReceiptLedger

@Suite("Ledger appAccountToken binding")
struct AppAccountTokenTests {
    let token = UUID(uuidString: "9F2C4A8E-6B1D-4E3F-A5C7-0D8B2E6F1A3C")!

    @Test(arguments: StoreKind.allCases) func aTokenedTransactionIsCreditedToTheBoundUser(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            try await ledger.bind(user: "alice", appAccountToken: token)
            let outcome = try await ledger.credit(user: "alice", transactions: [signedTransaction("2000", appAccountToken: token)])
            #expect(outcome == CreditOutcome(credited: ["2000"]))
        }
    }

    @Test(arguments: StoreKind.allCases) func anotherUserClaimingATokenedTransactionIsAMismatchAndNothingIsCredited(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            try await ledger.bind(user: "alice", appAccountToken: token)
            await #expect(throws: LedgerError.appAccountTokenMismatch(transactionId: "2000")) {
                try await ledger.credit(user: "bob", transactions: [signedTransaction("2000", appAccountToken: token)])
            }
            await #expect(throws: LedgerError.appAccountTokenMismatch(transactionId: "2000")) {
                try await ledger.credit(
                    user: "bob", transactions: [signedTransaction("2000", appAccountToken: token)], requested: "2000")
            }
            #expect(try await ledger.credits(of: "bob").isEmpty)
            // Alice's by her token: not a missed order, and still hers to credit.
            #expect(try await ledger.uncredited(olderThan: -1).isEmpty)
            #expect(try await ledger.owner(ofSubscription: "2000") == "alice")
            let alice = try await ledger.credit(user: "alice", transactions: [signedTransaction("2000", appAccountToken: token)])
            #expect(alice == CreditOutcome(credited: ["2000"]))
        }
    }

    @Test(arguments: StoreKind.allCases) func aTokenBoundToNoUserIsAMismatch(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            await #expect(throws: LedgerError.appAccountTokenMismatch(transactionId: "2000")) {
                try await ledger.credit(user: "alice", transactions: [signedTransaction("2000", appAccountToken: token)])
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func theTokenMatchesWhateverCaseTheAppStoreWroteItIn(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            try await ledger.bind(user: "alice", appAccountToken: token)
            // Foundation writes UUIDs in capitals, Apple's JSON in small letters: both must match.
            let transaction = LedgerTransaction(
                transactionId: "2000", environment: "Sandbox", source: .jws,
                appAccountToken: "9F2C4A8E-6B1D-4E3F-A5C7-0D8B2E6F1A3C")
            #expect(transaction.appAccountToken == "9f2c4a8e-6b1d-4e3f-a5c7-0d8b2e6f1a3c")
            #expect(try await ledger.credit(user: "alice", transactions: [transaction]) == CreditOutcome(credited: ["2000"]))
        }
    }

    @Test(arguments: StoreKind.allCases) func aTransactionWithoutATokenGoesToTheFirstClaimant(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            try await ledger.bind(user: "alice", appAccountToken: token)
            let bob = try await ledger.credit(user: "bob", transactions: [signedTransaction("2001", appAccountToken: nil)])
            #expect(bob == CreditOutcome(credited: ["2001"]))
        }
    }

    @Test(arguments: StoreKind.allCases) func bindingsArePermanent(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            try await ledger.bind(user: "alice", appAccountToken: token)
            try await ledger.bind(user: "alice", appAccountToken: token)  // the same pair again: fine
            await #expect(throws: LedgerError.bindingConflict(user: "bob")) {
                try await ledger.bind(user: "bob", appAccountToken: token)
            }
            await #expect(throws: LedgerError.bindingConflict(user: "alice")) {
                try await ledger.bind(user: "alice", appAccountToken: UUID())
            }
        }
    }

    /// A receipt carries no appAccountToken: once a JWS of the transaction has told the ledger its
    /// token, a receipt holding the same transaction cannot credit another user (the app logged
    /// out A and logged in B, then sent the receipt). Whichever input came first.
    @Test(arguments: StoreKind.allCases) func aReceiptCannotCreditATransactionWhoseJWSCarriedAnotherUsersToken(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            try await ledger.bind(user: "alice", appAccountToken: token)
            // JWS first: seen with its token, then claimed by bob with the receipt.
            try await ledger.record(seen: [signedTransaction("2000", appAccountToken: token)])
            await #expect(throws: LedgerError.appAccountTokenMismatch(transactionId: "2000")) {
                try await ledger.credit(user: "bob", transactions: [receiptTransaction("2000")])
            }
            // Receipt first: seen without a token; the JWS seen later adds it.
            try await ledger.record(seen: [receiptTransaction("2001")])
            try await ledger.record(seen: [signedTransaction("2001", appAccountToken: token)])
            await #expect(throws: LedgerError.appAccountTokenMismatch(transactionId: "2001")) {
                try await ledger.credit(user: "bob", transactions: [receiptTransaction("2001"), receiptTransaction("2002")])
            }
            // Nothing of bob's request was credited, not even 2002, which carries no token.
            #expect(try await ledger.credits(of: "bob").isEmpty)
            #expect(try await ledger.credit(user: "alice", transactions: [receiptTransaction("2000"), receiptTransaction("2001")])
                == CreditOutcome(credited: ["2000", "2001"]))
        }
    }

    /// User ids are bytes to the database: "é" as one scalar and as e + U+0301 are two users, even
    /// though Swift's `==` calls them equal.
    @Test(arguments: StoreKind.allCases) func canonicallyEquivalentUserIdsAreDifferentUsers(_ store: StoreKind) async throws {
        let composed = "ren\u{E9}", decomposed = "rene\u{301}"
        try await withLedger(store) { ledger, _ in
            try await ledger.bind(user: composed, appAccountToken: token)
            await #expect(throws: LedgerError.appAccountTokenMismatch(transactionId: "2000")) {
                try await ledger.credit(user: decomposed, transactions: [signedTransaction("2000", appAccountToken: token)])
            }
            #expect(try await ledger.credit(user: composed, transactions: [receiptTransaction("3000")]) == CreditOutcome(credited: ["3000"]))
            #expect(try await ledger.credit(user: decomposed, transactions: [receiptTransaction("3000")]) == CreditOutcome(conflicts: ["3000"]))
            await #expect(throws: LedgerError.bindingConflict(user: decomposed)) {
                try await ledger.bind(user: decomposed, appAccountToken: token)
            }
        }
    }
}
