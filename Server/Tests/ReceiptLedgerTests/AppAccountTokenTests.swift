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
            // Still owed to alice, and seen.
            #expect(try await ledger.uncredited(olderThan: -1).map(\.transaction.transactionId) == ["2000"])
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
}
