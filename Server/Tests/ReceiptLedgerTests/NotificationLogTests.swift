import Foundation
import ReceiptParser
import Testing
import ReceiptLedger
import ServerTestSupport

/// The notification log: each `notificationUUID` once however often Apple delivered it, counted;
/// stale when everything it carried was older than what the ledger held when it first arrived.
@Suite("Ledger notification log")
struct NotificationLogTests {
    static let (t0, day) = (LedgerSnapshotTests.t0, LedgerSnapshotTests.day)

    static func notification(_ uuid: String, _ type: NotificationType, signed: Date) -> ServerNotification {
        var notification = ServerNotification()
        notification.notificationUUID = uuid
        notification.notificationType = type
        notification.signedDate = signed
        return notification
    }

    @Test(arguments: StoreKind.allCases) func repeatsAreCountedAndOldNewsIsStale(_ store: StoreKind) async throws {
        let clock = TestClock()
        try await withLedger(store, clock: clock) { ledger, _ in
            let renewedSigned = Self.t0 + 30 * Self.day
            let renewed = try LedgerSnapshotTests.transaction("2", original: "1", bought: renewedSigned, expires: renewedSigned + 30 * Self.day,
                                                              signed: renewedSigned)
            let refunded = try LedgerSnapshotTests.transaction("2", original: "1", bought: renewedSigned, expires: renewedSigned + 30 * Self.day,
                                                               revoked: renewedSigned + Self.day, signed: renewedSigned + Self.day)
            let renewal = Self.notification("a-renew", .didRenew, signed: renewedSigned)
            let refund = Self.notification("b-refund", .refund, signed: renewedSigned + Self.day)
            // The refund first, then the renewal (retried: three deliveries), then a TEST.
            try await ledger.apply(notification: refund, transaction: refunded)
            for _ in 0..<3 {
                clock.advance(by: 1)
                try await ledger.apply(notification: renewal, transaction: renewed)
            }
            clock.advance(by: 1)
            try await ledger.apply(notification: Self.notification("c-test", .test, signed: Self.t0), transaction: nil)

            let logged = try await ledger.notifications()
            #expect(logged.map(\.notification.notificationUUID) == ["c-test", "a-renew", "b-refund"])
            #expect(logged.map(\.deliveries) == [1, 3, 1])
            #expect(logged.map(\.stale) == [false, true, false])
            #expect(logged.map(\.notification.originalTransactionId) == [nil, "1", "1"])
            #expect(logged.map(\.notification.notificationType) == ["TEST", "DID_RENEW", "REFUND"])
            #expect(logged[1].firstReceivedAt == logged[1].lastReceivedAt - 2)
            #expect(try await ledger.notifications(originalTransactionId: "1").map(\.notification.notificationUUID) == ["a-renew", "b-refund"])
            #expect(try await ledger.notifications(originalTransactionId: "1", limit: 1).count == 1)
            #expect(try await ledger.notifications(originalTransactionId: "9").isEmpty)
            // The stale renewal changed nothing: the refund stands.
            #expect(try await ledger.subscription(originalTransactionId: "1", at: renewedSigned + 2 * Self.day)?.status == .revoked)
        }
    }

    /// In every order of three notifications delivered with repeats: the same entries and counts.
    @Test(arguments: StoreKind.allCases) func theSameEntriesInEveryOrder(_ store: StoreKind) async throws {
        let transactions = try (0..<3).map { index in
            try LedgerSnapshotTests.transaction("\(index + 1)", original: "1", bought: Self.t0 + Double(index) * 30 * Self.day,
                                                expires: Self.t0 + Double(index + 1) * 30 * Self.day, signed: Self.t0 + Double(index) * 30 * Self.day)
        }
        let notifications = transactions.indices.map { Self.notification("n\($0)", .didRenew, signed: Self.t0 + Double($0) * 30 * Self.day) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            var deliveries = Array(transactions.indices) + (0..<3).map { _ in Int.random(in: 0..<3, using: &generator) }
            deliveries.shuffle(using: &generator)
            try await withLedger(store) { ledger, _ in
                for index in deliveries {
                    try await ledger.apply(notification: notifications[index], transaction: transactions[index])
                }
                let counts = Dictionary(uniqueKeysWithValues: try await ledger.notifications().map { ($0.notification.notificationUUID, $0.deliveries) })
                #expect(counts == Dictionary(deliveries.map { ("n\($0)", 1) }, uniquingKeysWith: +))
                #expect(try await ledger.subscription(originalTransactionId: "1", at: Self.t0)?.transactionId == "3")
            }
        }
    }
}
