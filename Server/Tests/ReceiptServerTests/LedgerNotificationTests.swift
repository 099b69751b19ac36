import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import ServerTestSupport
import Testing
@testable import ReceiptServer

/// `POST /v2/notifications` with a ledger: the notification's transaction is recorded as seen,
/// REFUND and REVOKE mark it revoked, and a ledger failure answers 503 so that Apple retries.
struct LedgerNotificationTests {
    typealias Fixtures = LedgerFixtures

    static func post(_ client: some TestClientProtocol, _ name: String) async throws -> (status: Int, json: [String: Any]) {
        try await SignedDataFixtures.answer(client, "/v2/notifications", try SignedDataFixtures.body("signedPayload", name))
    }

    /// A purchase the app never reported becomes a missed order; a refused notification records nothing.
    @Test func aNotificationsTransactionIsRecordedAsSeen() async throws {
        let clock = TestClock()
        try await Fixtures.withServer(clock: { clock.now }) { client, _ in
            #expect(try await Self.post(client, "nested-bad-signature.jws").status == 400)
            let (status, _) = try await SignedDataFixtures.answer(client, "/v2/notifications",
                                                                  ByteBuffer(bytes: try SignedDataFixtures.file("body-signed-payload.json")))
            #expect(status == 200)
            clock.advance(by: 1)
            let rows = Fixtures.rows(try await Fixtures.send(client, .get, "/v1/uncredited").json, "uncredited")
            #expect(rows as [NSDictionary] == [[
                "transactionId": "2000000000000201", "originalTransactionId": "2000000000000100", "productId": "com.example.pro.monthly",
                "bundleId": "com.example.receiptparser.sample", "environment": "Sandbox", "purchaseDate": "2025-06-01T11:59:00.000Z",
                "expiresDate": "2025-07-01T11:59:00.000Z", "firstSeenAt": "2023-11-14T22:13:20.000Z", "source": "jws",
            ]])
        }
    }

    /// A refund of a credited purchase lists it for claw-back, dated by the transaction's
    /// revocationDate, with the notification's type and the revocation reason.
    @Test func aRefundListsTheCreditAsRevoked() async throws {
        let clock = TestClock()
        try await Fixtures.withServer(clock: { clock.now }) { client, _ in
            let credit = try await Fixtures.send(client, .post, "/v1/credits",
                                                 body: try Fixtures.receiptCredit(user: "alice", #","transactionId":"2000000000000002""#))
            #expect(Fixtures.ids(credit.json, "credited") == ["2000000000000002"])
            #expect(Fixtures.rows(try await Fixtures.send(client, .get, "/v1/revoked").json, "revoked").isEmpty)

            let refund = try await Self.post(client, "notification-refund.jws")
            #expect(refund.status == 200)
            #expect(refund.json["notificationType"] as? String == "REFUND")
            let revoked = Fixtures.rows(try await Fixtures.send(client, .get, "/v1/revoked").json, "revoked")
            #expect(revoked as [NSDictionary] == [[
                "transactionId": "2000000000000002", "user": "alice", "productId": "com.example.pro.monthly",
                "creditedAt": "2023-11-14T22:13:20.000Z", "revokedAt": "2025-06-02T08:00:00.000Z",
                "revocationReason": "REFUND (revocationReason 1)",
            ]])
            // Apple sends it again: the first revocation is kept.
            #expect(try await Self.post(client, "notification-refund.jws").status == 200)
            #expect(Fixtures.rows(try await Fixtures.send(client, .get, "/v1/revoked").json, "revoked").count == 1)
        }
    }

    /// The late retry: a credit, its REFUND, the REFUND_REVERSED signed four hours later, then the
    /// REFUND delivered again (Apple retries a delivery that once failed): the credit stays
    /// restored, and posting them in the other orders ends the same.
    @Test func aRetriedRefundDoesNotUndoItsReversal() async throws {
        for order in [["notification-refund.jws", "notification-refund-reversed.jws", "notification-refund.jws"],
                      ["notification-refund-reversed.jws", "notification-refund.jws"]] {
            try await Fixtures.withServer { client, _ in
                let credit = try await Fixtures.send(client, .post, "/v1/credits",
                                                     body: try Fixtures.receiptCredit(user: "alice", #","transactionId":"2000000000000002""#))
                #expect(Fixtures.ids(credit.json, "credited") == ["2000000000000002"])
                for name in order {
                    #expect(try await Self.post(client, name).status == 200)
                }
                #expect(Fixtures.rows(try await Fixtures.send(client, .get, "/v1/revoked").json, "revoked").isEmpty, "\(order)")
                let credits = Fixtures.rows(try await Fixtures.send(client, .get, "/v1/users/alice/credits").json, "credits")
                #expect(credits.count == 1 && credits.first?["revokedAt"] == nil, "\(order)")
            }
        }
    }

    /// `GET /v1/notifications`: each notification once with its deliveries; a REFUND first delivered
    /// after its reversal is stale. A repeat answers 200 like the first delivery.
    @Test func theNotificationLogCountsDeliveriesAndMarksOldNews() async throws {
        try await Fixtures.withServer { client, _ in
            for name in ["notification-refund-reversed.jws", "notification-refund.jws", "notification-refund.jws"] {
                #expect(try await Self.post(client, name).status == 200)
            }
            #expect(try await Self.post(client, "notification-test.jws").status == 200)
            let all = Fixtures.rows(try await Fixtures.send(client, .get, "/v1/notifications").json, "notifications")
            #expect(all.count == 3)
            let answer = try await Fixtures.send(client, .get, "/v1/notifications?originalTransactionId=2000000000000002&limit=10")
            #expect(answer.status == 200)
            let rows = Fixtures.rows(answer.json, "notifications")
            #expect(rows.map { $0["notificationType"] as? String } == ["REFUND", "REFUND_REVERSED"])
            #expect(rows.map { $0["deliveries"] as? Int } == [2, 1])
            #expect(rows.map { $0["stale"] as? Bool } == [true, false])
            #expect(rows.first?["notificationUUID"] as? String == "2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e07")
            #expect(rows.first?["signedDate"] as? String == "2025-06-02T08:00:30.000Z")
            #expect(rows.first?["subtype"] is NSNull)
            #expect(rows.first?["transactionId"] as? String == "2000000000000002")
            let unknownParameter = try await Fixtures.send(client, .get, "/v1/notifications?transactionId=1")
            #expect(unknownParameter.status == 400)
        }
    }

    /// A revocation of a transaction never credited shows among the missed orders, revoked; without
    /// a revocationDate it is dated by the notification's signedDate.
    @Test func aRevokeOfAnUncreditedTransactionIsAMissedOrderRevoked() async throws {
        let clock = TestClock()
        try await Fixtures.withServer(clock: { clock.now }) { client, _ in
            let revoke = try await Self.post(client, "notification-revoke.jws")
            #expect(revoke.status == 200)
            #expect(revoke.json["notificationType"] as? String == "REVOKE")
            clock.advance(by: 1)
            let rows = Fixtures.rows(try await Fixtures.send(client, .get, "/v1/uncredited").json, "uncredited")
            #expect(rows.count == 1)
            #expect(rows.first?["transactionId"] as? String == "2000000000000241")
            #expect(rows.first?["revokedAt"] as? String == "2025-06-01T12:00:00.000Z")
            #expect(rows.first?["revocationReason"] as? String == "REVOKE")
            #expect(Fixtures.rows(try await Fixtures.send(client, .get, "/v1/revoked").json, "revoked").isEmpty)
        }
    }

    /// Without a ledger a notification is answered as before: nothing to record.
    @Test func withoutALedgerNotificationsAreAnsweredAsBefore() async throws {
        try await buildApplication(try SignedDataFixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            let answer = try await Self.post(client, "notification-refund.jws")
            #expect(answer.status == 200)
        }
    }

    @Test func aLedgerFailureAnswers503SoThatAppleRetries() async throws {
        try await Fixtures.withServer(makeStore: Fixtures.smallStore) { client, ledger in
            await Fixtures.fill(ledger)
            let answer = try await Self.post(client, "notification-revoke.jws")
            #expect(answer.status == 503)
            #expect(RefusalShape.error(answer.json, verification: false)["code"] == "storageUnavailable")
            #expect(try await ledger.uncredited(olderThan: -60, limit: 10_000).allSatisfy { $0.transaction.transactionId.hasPrefix("fill-") })
        }
    }
}
