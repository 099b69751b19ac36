import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import ServerTestSupport
import Testing
@testable import ReceiptServer

/// `GET /v1/users/{user}/entitlements` and `GET /v1/subscriptions/{originalTransactionId}`: what a
/// user owns at an instant, and one subscription with its owner, from the ledger's snapshots by the
/// library's rules.
struct EntitlementRouteTests {
    typealias Fixtures = LedgerFixtures

    /// sample.receipt's subscription purchase: bought 2025-05-20, expires 2025-06-20.
    static let subscriptionId = "2000000000000002"

    @Test func aCreditedSubscriptionIsAnEntitlementUntilItExpiresOrIsRefunded() async throws {
        try await Fixtures.withServer { client, _ in
            _ = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: "alice"))
            let during = try await Fixtures.send(client, .get, "/v1/users/alice/entitlements?at=2025-06-10T00:00:00Z")
            #expect(during.status == 200)
            #expect(during.json["user"] as? String == "alice" && during.json["at"] as? String == "2025-06-10T00:00:00.000Z")
            let entries = Fixtures.rows(during.json, "entitlements")
            // The consumable is a credit, and a receipt cannot say the unlock is a non-consumable.
            #expect(entries as [NSDictionary] == [[
                "productId": "com.example.pro.monthly", "type": "Auto-Renewable Subscription",
                "originalTransactionId": Self.subscriptionId, "transactionId": Self.subscriptionId,
                "subscriptionGroupIdentifier": NSNull(), "status": "active", "entitled": true,
                "expiresDate": "2025-06-20T09:30:00.000Z", "gracePeriodExpiresDate": NSNull(), "revocationDate": NSNull(),
                "autoRenewStatus": NSNull(), "autoRenewProductId": NSNull(), "ownershipType": NSNull(), "environment": "Sandbox",
            ]])
            let after = try await Fixtures.send(client, .get, "/v1/users/alice/entitlements?at=2025-06-21T00:00:00%2B00:00")
            #expect(Fixtures.rows(after.json, "entitlements").map { $0["status"] as? String } == ["expired"])
            #expect(Fixtures.rows(after.json, "entitlements").map { $0["entitled"] as? Bool } == [false])

            #expect(try await LedgerNotificationTests.post(client, "notification-refund.jws").status == 200)
            let refunded = try await Fixtures.send(client, .get, "/v1/subscriptions/\(Self.subscriptionId)?at=2025-06-10T00:00:00Z")
            #expect(refunded.status == 200)
            #expect(refunded.json["status"] as? String == "revoked" && refunded.json["entitled"] as? Bool == false)
            #expect(refunded.json["revocationDate"] as? String == "2025-06-02T08:00:00.000Z")
            #expect(refunded.json["owner"] as? String == "alice")
            #expect(Fixtures.rows(try await Fixtures.send(client, .get, "/v1/users/bob/entitlements").json, "entitlements").isEmpty)
        }
    }

    /// A subscription only Apple told the ledger about: answered with its renewal info, owned by
    /// nobody; one never seen is 404; a bad instant 400.
    @Test func aSubscriptionNobodyOwnsAndOneNeverSeen() async throws {
        try await Fixtures.withServer { client, _ in
            let (status, _) = try await SignedDataFixtures.answer(client, "/v2/notifications",
                                                                  ByteBuffer(bytes: try SignedDataFixtures.file("body-signed-payload.json")))
            #expect(status == 200)
            let seen = try await Fixtures.send(client, .get, "/v1/subscriptions/2000000000000100?at=2025-06-15T00:00:00Z")
            #expect(seen.status == 200)
            #expect(seen.json["owner"] is NSNull)
            #expect(seen.json["status"] as? String == "active" && seen.json["transactionId"] as? String == "2000000000000201")
            #expect(seen.json["autoRenewStatus"] as? Bool != nil)

            let unknown = try await Fixtures.send(client, .get, "/v1/subscriptions/999")
            #expect(unknown.status == 404)
            #expect(RefusalShape.error(unknown.json, verification: false)["code"] == "notFound")
            let badInstant = try await Fixtures.send(client, .get, "/v1/subscriptions/2000000000000100?at=yesterday")
            #expect(badInstant.status == 400)
            #expect(RefusalShape.error(badInstant.json, verification: false)["member"] == "at")
            let twice = try await Fixtures.send(client, .get, "/v1/users/alice/entitlements?at=2025-06-15T00:00:00Z&at=2025-06-16T00:00:00Z")
            #expect(twice.status == 400)
            let unauthorized = try await Fixtures.send(client, .get, "/v1/users/alice/entitlements", authorization: nil)
            #expect(unauthorized.status == 401)
        }
    }

    /// Without `at`, the ledger's clock.
    @Test func withoutAnInstantTheLedgersNow() async throws {
        let clock = TestClock()
        try await Fixtures.withServer(clock: { clock.now }) { client, _ in
            let answer = try await Fixtures.send(client, .get, "/v1/users/alice/entitlements")
            #expect(answer.json["at"] as? String == "2023-11-14T22:13:20.000Z")
        }
    }
}
