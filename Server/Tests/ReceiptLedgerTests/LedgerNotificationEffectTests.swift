import Foundation
import ReceiptParser
import Testing
import ReceiptLedger

@Suite("What a notification means to the ledger")
struct LedgerNotificationEffectTests {
    static let received = Date(timeIntervalSince1970: 1_700_000_000)
    static let signed = Date(timeIntervalSince1970: 1_749_000_000)
    static let revoked = Date(timeIntervalSince1970: 1_748_851_200)

    static func notification(_ type: NotificationType?, signedDate: Date? = signed) -> ServerNotification {
        var notification = ServerNotification()
        notification.notificationType = type
        notification.signedDate = signedDate
        return notification
    }

    static func transaction(_ id: String? = "2000", revocationDate: Date? = nil, reason: RevocationReason? = nil,
                            signedDate: Date? = nil) -> SignedTransaction {
        var transaction = SignedTransaction()
        transaction.signedDate = signedDate
        transaction.transactionId = id
        transaction.productId = "com.example.pro"
        transaction.environment = "Sandbox"
        transaction.revocationDate = revocationDate
        transaction.revocationReason = reason
        return transaction
    }

    static func effect(_ notification: ServerNotification, _ transaction: SignedTransaction) -> LedgerNotificationEffect? {
        LedgerNotificationEffect(notification: notification, transaction: transaction, receivedAt: received)
    }

    @Test func aRefundRevokesAtTheTransactionsRevocationDateWithTheTypeAndReason() throws {
        let effect = try #require(Self.effect(Self.notification(.refund), Self.transaction(revocationDate: Self.revoked, reason: .refundedDueToIssue)))
        #expect(effect.action == .revoke(at: Self.revoked, reason: "REFUND (revocationReason 1)"))
        // The revocation is the notification's, not the converter's generic one.
        #expect(effect.transaction.revocationDate == nil)
        #expect(effect.transaction.revocationReason == nil)
        #expect(effect.transaction.transactionId == "2000")
    }

    @Test func aRevokeWithoutARevocationDateIsDatedByTheSignedDateElseWhenReceived() throws {
        #expect(Self.effect(Self.notification(.revoke), Self.transaction())?.action == .revoke(at: Self.signed, reason: "REVOKE"))
        #expect(Self.effect(Self.notification(.revoke, signedDate: nil), Self.transaction())?.action
            == .revoke(at: Self.received, reason: "REVOKE"))
    }

    @Test func aReversedRefundClearsTheRevocation() throws {
        let effect = try #require(Self.effect(Self.notification(.refundReversed), Self.transaction(revocationDate: Self.revoked)))
        #expect(effect.action == .clearRevocation)
        #expect(effect.transaction.revocationDate == nil)
    }

    @Test(arguments: [NotificationType.didRenew, .refundDeclined, .consumptionRequest, NotificationType(rawValue: "SOMETHING_NEW")])
    func otherTypesRecordTheTransactionAsSigned(_ type: NotificationType) throws {
        let effect = try #require(Self.effect(Self.notification(type), Self.transaction(revocationDate: Self.revoked, reason: .refundedForOtherReason)))
        #expect(effect.action == .recordSeen)
        #expect(effect.transaction == LedgerTransaction(signedTransaction: Self.transaction(revocationDate: Self.revoked, reason: .refundedForOtherReason)))
        #expect(effect.transaction.revocationDate == Self.revoked)
        #expect(Self.effect(Self.notification(nil), Self.transaction())?.action == .recordSeen)
    }

    @Test func aTransactionWithoutAnIdMeansNothing() {
        #expect(Self.effect(Self.notification(.refund), Self.transaction(nil)) == nil)
    }

    /// Applied: a REFUND after the credit lists it for claw-back; Apple sending it again changes
    /// nothing; REFUND_REVERSED (signed four hours later) takes it off the list, and a late retry of
    /// the REFUND does not put it back.
    @Test(arguments: StoreKind.allCases) func aRefundThenItsReversalOnACredit(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let refunded = Self.transaction(revocationDate: Self.revoked, reason: .refundedDueToIssue, signedDate: Self.revoked + 30)
            let reversed = Self.transaction(signedDate: Self.revoked + 4 * 3600)
            let purchase = try #require(LedgerTransaction(signedTransaction: Self.transaction()))
            #expect(try await ledger.credit(user: "alice", transactions: [purchase]) == CreditOutcome(credited: ["2000"]))

            for _ in 0..<2 {
                try await ledger.apply(notification: Self.notification(.refund), transaction: refunded)
                let revoked = try await ledger.revokedCredits()
                #expect(revoked.map(\.transactionId) == ["2000"])
                #expect(revoked.first?.revokedAt == Self.revoked)
                #expect(revoked.first?.revocationReason == "REFUND (revocationReason 1)")
            }
            try await ledger.apply(notification: Self.notification(.refundReversed), transaction: reversed)
            #expect(try await ledger.revokedCredits().isEmpty)
            try await ledger.apply(notification: Self.notification(.refund), transaction: refunded)
            #expect(try await ledger.revokedCredits().isEmpty)
            #expect(try await ledger.credits(of: "alice").map(\.revokedAt) == [nil])
        }
    }

    /// A REFUND, its REFUND_REVERSED and a retry of the REFUND, in every order: reversed, always.
    @Test(arguments: StoreKind.allCases) func aReversedRefundStaysReversedInEveryOrder(_ store: StoreKind) async throws {
        let refund = (Self.notification(.refund), Self.transaction(revocationDate: Self.revoked, signedDate: Self.revoked + 30))
        let reversal = (Self.notification(.refundReversed), Self.transaction(signedDate: Self.revoked + 4 * 3600))
        for order in [[refund, reversal, refund], [reversal, refund, refund], [refund, refund, reversal]] {
            try await withLedger(store) { ledger, _ in
                for (notification, transaction) in order {
                    try await ledger.apply(notification: notification, transaction: transaction)
                }
                #expect(try await ledger.uncredited(olderThan: -1).map(\.revokedAt) == [nil])
            }
        }
    }

    /// Applied before any credit: the revoked transaction is a missed order, revoked, and is never
    /// credited until the refund is reversed.
    @Test(arguments: StoreKind.allCases) func aRevokeBeforeAnyCreditPreventsItUntilReversed(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            let effect = try await ledger.apply(notification: Self.notification(.revoke), transaction: Self.transaction(signedDate: Self.signed))
            #expect(effect?.action == .revoke(at: Self.signed, reason: "REVOKE"))
            let missed = try await ledger.uncredited(olderThan: -1)
            #expect(missed.map(\.transaction.transactionId) == ["2000"])
            #expect(missed.first?.revokedAt == Self.signed)
            #expect(missed.first?.revocationReason == "REVOKE")
            let purchase = try #require(LedgerTransaction(signedTransaction: Self.transaction()))
            #expect(try await ledger.credit(user: "alice", transactions: [purchase]) == CreditOutcome(revoked: ["2000"]))

            try await ledger.apply(notification: Self.notification(.refundReversed), transaction: Self.transaction(signedDate: Self.signed + 1))
            #expect(try await ledger.credit(user: "alice", transactions: [purchase]) == CreditOutcome(credited: ["2000"]))
        }
    }

    @Test(arguments: StoreKind.allCases) func anyOtherNotificationRecordsTheTransactionAsSeen(_ store: StoreKind) async throws {
        try await withLedger(store) { ledger, _ in
            try await ledger.apply(notification: Self.notification(.didRenew), transaction: Self.transaction())
            #expect(try await ledger.apply(notification: Self.notification(.didRenew), transaction: Self.transaction(nil)) == nil)
            let missed = try await ledger.uncredited(olderThan: -1)
            #expect(missed.map(\.transaction.transactionId) == ["2000"])
            #expect(missed.first?.revokedAt == nil)
        }
    }
}
