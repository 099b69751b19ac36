import Foundation
import ReceiptParser
import Testing
@testable import ReceiptLedger

/// The ledger keeps the latest signed word on each transaction and each renewal info, whatever order
/// they arrive in, and computes status from them with the library's rules: the same answer as
/// `SubscriptionSnapshots`, on SQLite and PostgreSQL.
@Suite("Ledger snapshots: the latest signed word, in any order")
struct LedgerSnapshotTests {
    static let day: TimeInterval = 86_400
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static func milliseconds(_ date: Date) -> String { String(Int64(date.timeIntervalSince1970 * 1000)) }

    /// A transaction as Apple signs it.
    static func transaction(_ id: String, original: String, product: String = "pro.monthly",
                            type: ProductType = .autoRenewableSubscription, bought: Date, expires: Date,
                            revoked: Date? = nil, signed: Date) throws -> SignedTransaction {
        var members = [#""transactionId":"\#(id)""#, #""originalTransactionId":"\#(original)""#, #""productId":"\#(product)""#,
                       #""type":"\#(type.rawValue)""#, #""purchaseDate":\#(milliseconds(bought))"#,
                       #""expiresDate":\#(milliseconds(expires))"#, #""signedDate":\#(milliseconds(signed))"#,
                       #""environment":"Sandbox""#]
        if let revoked { members.append(#""revocationDate":\#(milliseconds(revoked))"#) }
        return try SignedTransaction(payload: StrictJSON.parse(Array("{\(members.joined(separator: ","))}".utf8)))
    }

    static func renewal(original: String, retrying: Bool, grace: Date?, signed: Date) throws -> SignedRenewalInfo {
        var members = [#""originalTransactionId":"\#(original)""#, #""autoRenewStatus":1"#, #""autoRenewProductId":"pro.monthly""#,
                       #""isInBillingRetryPeriod":\#(retrying)"#, #""signedDate":\#(milliseconds(signed))"#]
        if let grace { members.append(#""gracePeriodExpiresDate":\#(milliseconds(grace))"#) }
        return try SignedRenewalInfo(payload: StrictJSON.parse(Array("{\(members.joined(separator: ","))}".utf8)))
    }

    /// One subscription's history: a month, its refund, the refund's reversal, a renewal, renewal
    /// info in billing retry and an older one that is not, each a separate arrival.
    enum Arrival { case transaction(SignedTransaction), renewal(SignedRenewalInfo) }

    static func history(_ original: String) throws -> [Arrival] {
        let (t0, day) = (t0, day)
        return [
            .transaction(try transaction(original + "1", original: original, bought: t0, expires: t0 + 30 * day, signed: t0)),
            .transaction(try transaction(original + "1", original: original, bought: t0, expires: t0 + 30 * day,
                                         revoked: t0 + 2 * day, signed: t0 + 2 * day)),
            .transaction(try transaction(original + "1", original: original, bought: t0, expires: t0 + 30 * day, signed: t0 + 3 * day)),
            .transaction(try transaction(original + "2", original: original, bought: t0 + 30 * day, expires: t0 + 60 * day,
                                         signed: t0 + 30 * day)),
            .renewal(try renewal(original: original, retrying: false, grace: nil, signed: t0 + 30 * day)),
            .renewal(try renewal(original: original, retrying: true, grace: t0 + 63 * day, signed: t0 + 60 * day)),
        ]
    }

    static func record(_ arrival: Arrival, in ledger: Ledger) async throws {
        switch arrival {
        case .transaction(let transaction):
            try await ledger.record(seen: [try #require(LedgerTransaction(signedTransaction: transaction))])
        case .renewal(let renewal):
            try await ledger.record(seen: [], renewalInfos: [renewal])
        }
    }

    /// 40 random orders with repeats, each its own subscription in one database: the ledger's
    /// status at several instants is the library's over the same snapshots, and the same in all.
    @Test(arguments: StoreKind.allCases) func theLedgerAgreesWithTheLibraryInEveryOrder(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            var generator = SystemRandomNumberGenerator()
            let instants = [Self.t0 + Self.day, Self.t0 + 31 * Self.day, Self.t0 + 61 * Self.day, Self.t0 + 64 * Self.day]
            var answers: Set<[SubscriptionState.Status?]> = []
            for run in 0..<40 {
                let original = "\(1000 + run)"
                var arrivals = try Self.history(original)
                arrivals += (0..<3).map { _ in arrivals.randomElement(using: &generator)! }
                arrivals.shuffle(using: &generator)
                var library = SubscriptionSnapshots()
                for arrival in arrivals {
                    try await Self.record(arrival, in: ledger)
                    switch arrival {
                    case .transaction(let transaction): library.record(transaction)
                    case .renewal(let renewal): library.record(renewal)
                    }
                }
                var statuses: [SubscriptionState.Status?] = []
                for instant in instants {
                    let held = try await ledger.subscription(originalTransactionId: original, at: instant)
                    #expect(held == library.subscriptions(at: instant).first, "order \(run) at \(instant)")
                    statuses.append(held?.status)
                }
                answers.insert(statuses)
                // The month's refund was reversed later: it is not revoked, whatever came last.
                #expect(try await ledger.uncredited(olderThan: -1).first { $0.transaction.transactionId == original + "1" }?.revokedAt == nil)
            }
            #expect(answers == [[.active, .active, .gracePeriod, .billingRetry]])
        }
    }

    /// A receipt is dated by its creation date: a cancelled purchase in an older receipt does not
    /// undo a later token that says otherwise, and a newer receipt's cancellation stands.
    @Test(arguments: StoreKind.allCases) func aReceiptIsVersionedByItsCreationDate(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            var receipt = Receipt()
            receipt.receiptType = "ProductionSandbox"
            receipt.bundleID = "com.example.app"
            receipt.creationDate = Self.t0 + Self.day
            var purchase = InAppPurchase()
            purchase.transactionID = "77"
            purchase.originalTransactionID = "77"
            purchase.productID = "pro.monthly"
            purchase.purchaseDate = Self.t0
            purchase.expiresDate = Self.t0 + 30 * Self.day
            purchase.cancellationDate = Self.t0 + Self.day / 2
            let cancelled = try #require(LedgerTransaction(purchase: purchase, in: receipt))
            let laterToken = try Self.transaction("77", original: "77", bought: Self.t0, expires: Self.t0 + 30 * Self.day,
                                                  signed: Self.t0 + 2 * Self.day)
            try await ledger.record(seen: [try #require(LedgerTransaction(signedTransaction: laterToken))])
            try await ledger.record(seen: [cancelled])
            #expect(try await ledger.subscription(originalTransactionId: "77", at: Self.t0 + 3 * Self.day)?.status == .active)
            #expect(try await ledger.uncredited(olderThan: -1).map(\.revokedAt) == [nil])

            receipt.creationDate = Self.t0 + 3 * Self.day
            try await ledger.record(seen: [try #require(LedgerTransaction(purchase: purchase, in: receipt))])
            #expect(try await ledger.subscription(originalTransactionId: "77", at: Self.t0 + 3 * Self.day)?.status == .revoked)
            #expect(try await ledger.uncredited(olderThan: -1).map(\.revokedAt) == [Self.t0 + Self.day / 2])
            #expect(try await ledger.subscription(originalTransactionId: "78", at: Self.t0) == nil)
        }
    }
}

extension LedgerSnapshotTests {
    /// A ledger made before snapshots, owners and the notification log existed (v1 only) gets them on opening,
    /// keeps its rows, its credits' users own their subscriptions, and a snapshot then decides
    /// revocations like any other. v1 let two users be credited one subscription: the first owns
    /// it, and the other keeps its credit but owns nothing through it.
    @Test(arguments: StoreKind.allCases) func aV1LedgerIsUpgradedInPlace(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, database in
            let purchase = try #require(LedgerTransaction(signedTransaction: try Self.transaction(
                "5", original: "5", bought: Self.t0, expires: Self.t0 + 30 * Self.day, signed: Self.t0)))
            _ = try await ledger.credit(user: "alice", transactions: [purchase])
            let later = try #require(LedgerTransaction(signedTransaction: try Self.transaction(
                "7", original: "5", bought: Self.t0 + 60 * Self.day, expires: Self.t0 + 90 * Self.day, signed: Self.t0 + 60 * Self.day)))
            try await ledger.record(seen: [later])
            let current = try #require(ledger.store as? DatabaseLedgerStore)
            // Back to v1: what later migrations made, and their bookkeeping rows, gone.
            try await current.driver.write { connection in
                for sql in ["DROP TABLE ledger_transaction_snapshots", "DROP TABLE ledger_renewal_snapshots",
                            "DROP TABLE ledger_subscription_owners", "DROP TABLE ledger_notifications", "DROP TABLE ledger_webhook_events", "DROP TABLE ledger_reconcile", "DROP TABLE ledger_api_budget", "DROP INDEX ledger_transactions_subscription",
                            "DROP INDEX ledger_transactions_token", "ALTER TABLE ledger_transactions DROP COLUMN subscription_key",
                            "DELETE FROM ledger_schema_migrations WHERE identifier <> 'v1-transactions-credits-users'",
                            "INSERT INTO ledger_credits (transaction_id, user_id, credited_at_ms) VALUES ('7', 'bob', 9999999999999)"] {
                    _ = try connection.execute(sql, [])
                }
            }
            #expect(try await current.appliedMigrations() == ["v1-transactions-credits-users"])

            let reopened = try #require(try await database.openStore() as? DatabaseLedgerStore)
            #expect(try await reopened.appliedMigrations() == LedgerSchema.migrations.map(\.identifier))
            let upgraded = Ledger(store: reopened)
            #expect(try await upgraded.credits(of: "alice").map(\.transactionId) == ["5"])
            #expect(try await upgraded.owner(ofSubscription: "5") == "alice")
            #expect(try await upgraded.credits(of: "bob").map(\.transactionId) == ["7"])
            let renewal = try #require(LedgerTransaction(signedTransaction: try Self.transaction(
                "6", original: "5", bought: Self.t0 + 30 * Self.day, expires: Self.t0 + 60 * Self.day, signed: Self.t0 + 30 * Self.day)))
            #expect(try await upgraded.credit(user: "bob", transactions: [renewal]) == CreditOutcome(conflicts: ["6"]))
            let refunded = try #require(LedgerTransaction(signedTransaction: try Self.transaction(
                "5", original: "5", bought: Self.t0, expires: Self.t0 + 30 * Self.day, revoked: Self.t0 + Self.day, signed: Self.t0 + Self.day)))
            try await upgraded.record(seen: [refunded])
            #expect(try await upgraded.revokedCredits().map(\.revokedAt) == [Self.t0 + Self.day])
            #expect(try await upgraded.subscription(originalTransactionId: "5", at: Self.t0 + 2 * Self.day)?.status == .active)
            #expect(try await upgraded.entitlements(of: "alice", at: Self.t0).map(\.originalTransactionId) == ["5"])
            #expect(try await upgraded.entitlements(of: "bob", at: Self.t0).isEmpty)
        }
    }
}

extension LedgerSnapshotTests {
    /// A status read from the ledger parses only the transactions that can be the most recent (v9
    /// keeps whether each entitles and when it was bought beside its snapshot), and gives the
    /// library's answer over every snapshot: a consumable bought later is not the most recent, two
    /// bought in one millisecond go to the rule's tie-break, and rows written before v9 (NULL) are
    /// parsed as before, alone or beside newer ones.
    @Test(arguments: StoreKind.allCases) func aStatusReadsOnlyTheTransactionsThatCanBeTheMostRecent(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let (t0, day) = (Self.t0, Self.day)
            var held = [
                try Self.transaction("40", original: "40", bought: t0, expires: t0 + 30 * day, signed: t0),
                try Self.transaction("41", original: "40", bought: t0 + 30 * day, expires: t0 + 60 * day, signed: t0 + 30 * day),
                // Bought in the same millisecond as 41: the shorter id is the older.
                try Self.transaction("9", original: "40", bought: t0 + 30 * day, expires: t0 + 90 * day, signed: t0 + 30 * day),
                try Self.transaction("42", original: "40", type: .consumable, bought: t0 + 50 * day, expires: t0 + 51 * day,
                                     signed: t0 + 50 * day),
            ]
            for transaction in held {
                try await ledger.record(seen: [try #require(LedgerTransaction(signedTransaction: transaction))])
            }
            let store = try #require(ledger.store as? DatabaseLedgerStore)
            let columns = try await store.driver.read { connection in
                try connection.rows("SELECT transaction_id, entitles, purchase_date_ms FROM ledger_transaction_snapshots")
                    .map { "\(try $0.requiredText(0)):\(try $0.integer(1).map(String.init) ?? "NULL"):\(try $0.integer(2).map(String.init) ?? "NULL")" }
            }
            #expect(Set(columns) == ["40:1:\(Self.milliseconds(t0))", "41:1:\(Self.milliseconds(t0 + 30 * day))",
                                     "9:1:\(Self.milliseconds(t0 + 30 * day))", "42:0:\(Self.milliseconds(t0 + 50 * day))"])

            func expectTheLibrarysAnswer(latest: String, _ comment: Comment) async throws {
                var all = SubscriptionSnapshots()
                for transaction in held { all.record(transaction) }
                for instant in [t0 + 40 * day, t0 + 70 * day] {
                    let read = try await ledger.subscription(originalTransactionId: "40", at: instant)
                    #expect(read == all.subscriptions(at: instant).first, comment)
                    #expect(read?.transactionId == latest, comment)
                }
            }
            try await expectTheLibrarysAnswer(latest: "41", "every row written by v9")
            for unknown in [["41"], ["40", "9"], ["40", "41", "9", "42"]] {
                try await store.driver.write { connection in
                    _ = try connection.execute("UPDATE ledger_transaction_snapshots SET entitles = NULL, purchase_date_ms = NULL", [])
                    _ = try connection.execute("""
                        UPDATE ledger_transaction_snapshots SET entitles = 1, purchase_date_ms = \(Self.milliseconds(t0 + 30 * day))
                        WHERE transaction_id IN ('41', '9')
                        """, [])
                    _ = try connection.execute("UPDATE ledger_transaction_snapshots SET entitles = 1 WHERE transaction_id = '40'", [])
                    _ = try connection.execute("UPDATE ledger_transaction_snapshots SET entitles = 0 WHERE transaction_id = '42'", [])
                    for id in unknown {
                        _ = try connection.execute(
                            "UPDATE ledger_transaction_snapshots SET entitles = NULL, purchase_date_ms = NULL WHERE transaction_id = '\(id)'", [])
                    }
                }
                try await expectTheLibrarysAnswer(latest: "41", "written before v9: \(unknown)")
            }
            // A renewal recorded now, beside rows written before v9, is the most recent.
            let renewal = try Self.transaction("43", original: "40", bought: t0 + 60 * day, expires: t0 + 90 * day, signed: t0 + 60 * day)
            try await ledger.record(seen: [try #require(LedgerTransaction(signedTransaction: renewal))])
            held.append(renewal)
            try await expectTheLibrarysAnswer(latest: "43", "a renewal beside rows written before v9")
        }
    }
}
