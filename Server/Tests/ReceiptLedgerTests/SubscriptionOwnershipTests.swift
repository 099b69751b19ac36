import Foundation
import ReceiptParser
import Testing
import ReceiptLedger

/// Ownership follows the original transaction: a subscription and all its renewals belong to the
/// user credited any of its transactions, or bound to an appAccountToken any of them carries; the
/// missed orders are only what nobody owns; entitlements are a user's subscriptions at an instant.
@Suite("Ledger ownership by original transaction, and entitlements")
struct SubscriptionOwnershipTests {
    typealias Snapshots = LedgerSnapshotTests
    static let (t0, day) = (LedgerSnapshotTests.t0, LedgerSnapshotTests.day)

    static func seen(_ id: String, original: String, product: String = "pro.monthly", bought: Date, expires: Date,
                     token: UUID? = nil) throws -> LedgerTransaction {
        var transaction = try Snapshots.transaction(id, original: original, product: product, bought: bought, expires: expires, signed: bought)
        transaction.appAccountToken = token?.uuidString
        return try #require(LedgerTransaction(signedTransaction: transaction))
    }

    @Test(arguments: StoreKind.allCases) func aRenewalBelongsToWhoeverWasCreditedThePurchase(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let purchase = try Self.seen("11", original: "11", bought: Self.t0, expires: Self.t0 + 30 * Self.day)
            let renewal = try Self.seen("12", original: "11", bought: Self.t0 + 30 * Self.day, expires: Self.t0 + 60 * Self.day)
            let otherSubscription = try Self.seen("21", original: "21", bought: Self.t0, expires: Self.t0 + 30 * Self.day)
            #expect(try await ledger.credit(user: "alice", transactions: [purchase]) == CreditOutcome(credited: ["11"]))
            // The app never posts renewals: Apple's DID_RENEW records it, and it is no missed order.
            try await ledger.record(seen: [renewal, otherSubscription])
            #expect(try await ledger.uncredited(olderThan: -1).map(\.transaction.transactionId) == ["21"])
            #expect(try await ledger.owner(ofSubscription: "11") == "alice")
            #expect(try await ledger.owner(ofSubscription: "21") == nil)

            #expect(try await ledger.credit(user: "bob", transactions: [renewal]) == CreditOutcome(conflicts: ["12"]))
            await #expect(throws: LedgerError.creditedToAnotherUser(transactionId: "12")) {
                try await ledger.credit(user: "bob", transactions: [renewal], requested: "12")
            }
            #expect(try await ledger.credit(user: "alice", transactions: [renewal]) == CreditOutcome(credited: ["12"]))
            #expect(try await ledger.credits(of: "bob").isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func aBoundTokenOwnsTheSubscriptionWithoutACredit(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let token = UUID()
            try await ledger.bind(user: "alice", appAccountToken: token)
            try await ledger.record(seen: [try Self.seen("31", original: "31", bought: Self.t0, expires: Self.t0 + 30 * Self.day, token: token)])
            #expect(try await ledger.uncredited(olderThan: -1).isEmpty)
            #expect(try await ledger.owner(ofSubscription: "31") == "alice")
            #expect(try await ledger.entitlements(of: "alice", at: Self.t0 + Self.day).map(\.originalTransactionId) == ["31"])
            // A renewal without the token is still hers: bob's claim is refused before anything is credited.
            let renewal = try Self.seen("32", original: "31", bought: Self.t0 + 30 * Self.day, expires: Self.t0 + 60 * Self.day)
            await #expect(throws: LedgerError.appAccountTokenMismatch(transactionId: "32")) {
                try await ledger.credit(user: "bob", transactions: [renewal])
            }
            #expect(try await ledger.credit(user: "alice", transactions: [renewal]) == CreditOutcome(credited: ["32"]))
            #expect(try await ledger.entitlements(of: "bob", at: Self.t0).isEmpty)
        }
    }

    /// Every subscription and non-consumable the user owns, expired included, sorted by product id
    /// then original transaction id; consumables are credits, not entitlements.
    @Test(arguments: StoreKind.allCases) func entitlementsListWhatTheUserOwnsAtTheInstant(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let yearly = try Self.seen("41", original: "41", product: "pro.yearly", bought: Self.t0, expires: Self.t0 + 365 * Self.day)
            let lapsed = try Self.seen("42", original: "42", product: "pro.monthly", bought: Self.t0, expires: Self.t0 + 30 * Self.day)
            let earlier = try Self.seen("40", original: "40", product: "pro.monthly", bought: Self.t0, expires: Self.t0 + 90 * Self.day)
            var unlock = try Snapshots.transaction("43", original: "43", product: "unlock", bought: Self.t0, expires: Self.t0, signed: Self.t0)
            unlock.type = .nonConsumable
            unlock.expiresDate = nil
            var coins = unlock
            coins.transactionId = "44"
            coins.originalTransactionId = "44"
            coins.productId = "coins"
            coins.type = .consumable
            let bought = [yearly, lapsed, earlier, try #require(LedgerTransaction(signedTransaction: unlock)),
                          try #require(LedgerTransaction(signedTransaction: coins))]
            _ = try await ledger.credit(user: "alice", transactions: bought)
            let entitlements = try await ledger.entitlements(of: "alice", at: Self.t0 + 60 * Self.day)
            #expect(entitlements.map(\.originalTransactionId) == ["40", "42", "41", "43"])
            #expect(entitlements.map(\.status) == [.active, .expired, .active, .active])
            #expect(entitlements.map(\.entitled) == [true, false, true, true])
            #expect(try await ledger.entitlements(of: "nobody", at: Self.t0).isEmpty)
        }
    }

    /// Two users racing for two transactions of one subscription, through two stores: exactly one
    /// of them owns it and holds both credits they asked for; the other has conflicts only.
    @Test(arguments: StoreKind.allCases) func twoUsersRacingForOneSubscriptionGiveOneOwner(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, database in
            let second = Ledger(store: try await database.openStore())
            for round in 0..<10 {
                let original = "\(500 + round)"
                let purchase = try Self.seen(original, original: original, bought: Self.t0, expires: Self.t0 + 30 * Self.day)
                let renewal = try Self.seen(original + "-r", original: original, bought: Self.t0 + 30 * Self.day, expires: Self.t0 + 60 * Self.day)
                async let alice = ledger.credit(user: "alice", transactions: [purchase, renewal])
                async let bob = second.credit(user: "bob", transactions: [renewal, purchase])
                let outcomes = try await [alice, bob]
                let owner = try #require(try await ledger.owner(ofSubscription: original))
                let (won, lost) = owner == "alice" ? (outcomes[0], outcomes[1]) : (outcomes[1], outcomes[0])
                #expect(Set(won.credited) == [original, original + "-r"], "round \(round)")
                #expect(lost.credited.isEmpty && Set(lost.conflicts) == [original, original + "-r"], "round \(round)")
            }
        }
    }
}
