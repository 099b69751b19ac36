import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ReceiptLedger
import ReceiptParser
import ServerTestSupport
import Testing
@testable import ReceiptServer

/// Webhooks out, end to end: a credit and a refund through the routes, posted by the server's
/// delivery service with a real HTTP client to a real local receiver that fails and stalls on
/// command; every event arrives signed as Standard Webhooks say, in order per user, with the same
/// id on every retry; one that never gets a 2xx is listed as failed and can be sent again.
@Suite(.serialized) struct WebhookDeliveryTests {
    typealias Fixtures = LedgerFixtures
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// Standard Webhooks' own example, which the `standardwebhooks` package (PyPI) signs the same.
    @Test func theSignatureIsStandardWebhooks() throws {
        let signer = try WebhookSigner(secret: Self.secret)
        #expect(signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
            == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(throws: WebhookOptionError.self) { try WebhookSigner(secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") }
        #expect(throws: WebhookOptionError.self) { try WebhookSigner(secret: "whsec_c2hvcnQ=") }
        #expect(try WebhookConfiguration.schedule("5s,5m,30m,2h,5h,10h,10h") == [5, 300, 1800, 7200, 18_000, 36_000, 36_000])
        #expect(throws: WebhookOptionError.self) { try WebhookConfiguration.schedule("5s,,1h") }
        #expect(throws: WebhookOptionError.self) { try WebhookConfiguration.schedule("5x") }
        #expect(throws: WebhookOptionError.self) { try WebhookConfiguration(url: "ftp://example.com/hook", secret: Self.secret) }
    }

    /// What the receiver got, and how it answers.
    final class Receiver: @unchecked Sendable {
        struct Delivery { let id: String, timestamp: String, signature: String, body: [UInt8], answered: Int }
        private let lock = NSLock()
        private var received: [Delivery] = []
        private var seen: [String: Int] = [:]
        /// Answers 500 to the first attempt of every event, stalls past the timeout on the second
        /// attempt of the first event, then 200; with `alwaysFails`, 500 always, at once.
        var alwaysFails = false

        var deliveries: [Delivery] { lock.withLock { received } }

        func answer(id: String, timestamp: String, signature: String, body: [UInt8]) async -> Int {
            let (attempt, isFirstEvent, fails) = lock.withLock { () -> (Int, Bool, Bool) in
                seen[id, default: 0] += 1
                return (seen[id]!, seen.count == 1, alwaysFails)
            }
            let status = fails || attempt == 1 ? 500 : 200
            let stalls = !fails && attempt == 2 && isFirstEvent
            if stalls { try? await Task.sleep(for: .milliseconds(1_500)) }
            // A stalled answer comes after the sender gave up: 0, not a delivery.
            lock.withLock { received.append(Delivery(id: id, timestamp: timestamp, signature: signature, body: body, answered: stalls ? 0 : status)) }
            return status
        }

        var application: some ApplicationProtocol {
            let router = Router()
            router.post("hook") { request, _ -> HTTPResponse.Status in
                let body = Array(try await request.body.collect(upTo: 1 << 20).readableBytesView)
                let headers = request.headers
                func header(_ name: String) -> String { HTTPField.Name(name).flatMap { headers[$0] } ?? "" }
                return .init(code: await self.answer(id: header("webhook-id"), timestamp: header("webhook-timestamp"),
                                                     signature: header("webhook-signature"), body: body))
            }
            return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        }
    }

    /// A server whose ledger sends webhooks to `receiver`, with short waits.
    static func withServer(receiver: Receiver, schedule: String,
                           _ body: @Sendable (any TestClientProtocol, Ledger) async throws -> Void) async throws {
        try await receiver.application.test(.live) { receiverClient in
            let port = try #require(receiverClient.port)
            var webhooks = try WebhookConfiguration(url: "http://127.0.0.1:\(port)/hook", secret: Self.secret, retrySchedule: schedule)
            webhooks.attemptTimeout = 1
            webhooks.pollInterval = 0.05
            try await withTemporaryDirectory("webhooks") { directory in
                let store = try SQLiteLedgerStore(path: directory.appendingPathComponent("ledger.sqlite").path, writesWebhookEvents: true)
                let ledger = Ledger(store: store)
                let delivery = WebhookDelivery(ledger: ledger, configuration: webhooks, logger: ServerTests.logger)
                let server = ServerLedger(ledger: ledger, token: try LedgerToken(Fixtures.token), services: [delivery])
                let app = buildApplication(try SignedDataFixtures.configuration(), ledger: server, logger: ServerTests.logger)
                try await app.test(.live) { client in try await body(client, ledger) }
            }
        }
    }

    /// Waits (up to 20 s) until `done` holds.
    static func eventually(_ done: () -> Bool) async throws {
        for _ in 0..<400 where !done() { try await Task.sleep(for: .milliseconds(50)) }
    }

    @Test func everyEventArrivesSignedInOrderWithTheSameIdOnEveryRetry() async throws {
        let receiver = Receiver()
        try await Self.withServer(receiver: receiver, schedule: "0s,0s,1s") { client, _ in
            _ = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: "alice"))
            #expect(try await LedgerNotificationTests.post(client, "notification-refund.jws").status == 200)
            try await Self.eventually { receiver.deliveries.filter { $0.answered == 200 }.count == 5 }
        }
        let deliveries = receiver.deliveries
        let delivered = deliveries.filter { $0.answered == 200 }
        // Two credits and their subscription's status, then the refund's revocation and status.
        let types = try delivered.map { try #require(try JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any])["type"] as? String }
        #expect(types == ["credit.created", "credit.created", "entitlement.changed", "credit.revoked", "entitlement.changed"])
        // In order: each delivered after every earlier event of alice's was.
        #expect(delivered.map(\.id) == delivered.map(\.id).sorted())
        let signer = try WebhookSigner(secret: Self.secret)
        let key = SymmetricKey(data: Data(base64Encoded: String(Self.secret.dropFirst(6)))!)
        for delivery in deliveries {
            // The signature checked as a receiver would, by the specification's recipe.
            let signed = Array("\(delivery.id).\(delivery.timestamp).".utf8) + delivery.body
            let expected = "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: key)).base64EncodedString()
            #expect(delivery.signature == expected)
            #expect(delivery.signature == signer.signature(id: delivery.id, timestamp: Int64(delivery.timestamp) ?? -1, body: delivery.body))
            #expect(abs((Double(delivery.timestamp) ?? 0) - Date().timeIntervalSince1970) < 60)
        }
        // Retried with the same id and body: every event was tried at least twice (500 first),
        // the first three times (it stalled past the timeout once).
        for event in delivered {
            let attempts = deliveries.filter { $0.id == event.id }
            #expect(attempts.allSatisfy { $0.body == event.body })
            #expect(attempts.count == (event.id == delivered[0].id ? 3 : 2))
        }
        let refund = try #require(try JSONSerialization.jsonObject(with: Data(delivered[4].body)) as? [String: Any])
        let data = try #require(refund["data"] as? [String: Any])
        // The ledger's clock is today's: the 2025 subscription had expired before its refund.
        #expect(data["previousStatus"] as? String == "expired" && data["status"] as? String == "revoked" && data["user"] as? String == "alice")
        #expect((data["cause"] as? [String: Any])?["notificationType"] as? String == "REFUND")
    }

    @Test func anEventNeverAnswered2xxIsFailedAndCanBeSentAgain() async throws {
        let receiver = Receiver()
        receiver.alwaysFails = true
        try await Self.withServer(receiver: receiver, schedule: "0s") { client, _ in
            _ = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: "bob", #","transactionId":"2000000000000001""#))
            var failed: [[String: Any]] = []
            for _ in 0..<400 {
                failed = Fixtures.rows(try await Fixtures.send(client, .get, "/v1/webhooks/failed").json, "failed")
                if !failed.isEmpty { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(failed.count == 1)
            let id = try #require(failed.first?["id"] as? String)
            #expect(failed.first?["attempts"] as? Int == 2 && failed.first?["lastError"] as? String == "answered HTTP 500",
                    "\(failed)")
            #expect((failed.first?["body"] as? [String: Any])?["type"] as? String == "credit.created")
            #expect(receiver.deliveries.filter { $0.id == id }.count == 2)

            receiver.alwaysFails = false
            let retry = try await Fixtures.send(client, .post, "/v1/webhooks/\(id)/retry")
            #expect(retry.status == 200 && retry.json["state"] as? String == "pending")
            try await Self.eventually { receiver.deliveries.contains { $0.id == id && $0.answered == 200 } }
            #expect(receiver.deliveries.contains { $0.id == id && $0.answered == 200 })
            #expect(Fixtures.rows(try await Fixtures.send(client, .get, "/v1/webhooks/failed").json, "failed").isEmpty)
            #expect(try await Fixtures.send(client, .post, "/v1/webhooks/\(id)/retry").status == 404)
        }
    }

    /// A ledger where an older server left alice's second event waiting behind nothing: the
    /// delivery service, started on it, sends it.
    @Test func theDeliveryServiceSendsAnEventStrandedBeforeItStarted() async throws {
        let receiver = Receiver()
        try await receiver.application.test(.live) { receiverClient in
            let port = try #require(receiverClient.port)
            var webhooks = try WebhookConfiguration(url: "http://127.0.0.1:\(port)/hook", secret: Self.secret, retrySchedule: "0s,0s")
            webhooks.attemptTimeout = 1
            webhooks.pollInterval = 0.05
            try await withTemporaryDirectory("stranded") { directory in
                let store = try SQLiteLedgerStore(path: directory.appendingPathComponent("ledger.sqlite").path, writesWebhookEvents: true)
                defer { try? store.close() }
                let ledger = Ledger(store: store)
                for id in ["1", "2"] {
                    _ = try await ledger.credit(user: "alice", transactions: [LedgerTransaction(
                        transactionId: id, originalTransactionId: id, productId: "com.example.coins100", bundleId: "com.example.app",
                        environment: "Production", purchaseDate: Date(), source: .receipt)])
                }
                let first = try await ledger.claimWebhookEvents(for: "old", lease: 30, limit: 10)
                try #require(first.count == 1)
                _ = try await store.driver.write { connection in
                    try connection.execute("UPDATE ledger_webhook_events SET state = 'delivered', claimed_by = NULL WHERE event_id = ?", [.text(first[0].id)])
                }
                let delivery = WebhookDelivery(ledger: ledger, configuration: webhooks, logger: ServerTests.logger)
                let worker = Task { try await delivery.run() }
                try await Self.eventually { receiver.deliveries.contains { $0.answered == 200 } }
                worker.cancel()
                _ = await worker.result
                let delivered = receiver.deliveries.filter { $0.answered == 200 }
                #expect(delivered.count == 1 && delivered.first?.id != first[0].id)
            }
        }
    }

    /// The worker sweeps for events an older server left waiting behind nothing when it starts,
    /// then once per interval of the ledger's clock, not in every round.
    @Test func theWorkerSweepsForStrandedEventsAtStartThenEachInterval() async throws {
        let clock = TestClock()
        try await withTemporaryDirectory("sweep") { directory in
            let store = try SQLiteLedgerStore(path: directory.appendingPathComponent("ledger.sqlite").path, writesWebhookEvents: true)
            defer { try? store.close() }
            let ledger = Ledger(store: store, now: { clock.now })
            func credit(_ id: String) async throws {
                _ = try await ledger.credit(user: "alice", transactions: [LedgerTransaction(
                    transactionId: id, originalTransactionId: id, productId: "com.example.coins100", bundleId: "com.example.app",
                    environment: "Production", purchaseDate: clock.now, source: .receipt)])
            }
            /// Claims alice's next event and finishes it as a server older than v7 did.
            func finishWithoutMovingOn() async throws -> Int {
                let claimed = try await ledger.claimWebhookEvents(for: "old", lease: 30, limit: 10)
                for event in claimed {
                    _ = try await store.driver.write { connection in
                        try connection.execute("UPDATE ledger_webhook_events SET state = 'delivered', claimed_by = NULL WHERE event_id = ?", [.text(event.id)])
                    }
                }
                return claimed.count
            }
            for id in ["1", "2", "3"] { try await credit(id) }
            #expect(try await finishWithoutMovingOn() == 1)
            #expect(try await finishWithoutMovingOn() == 0)

            var sweep = StrandedEventSweep(interval: 3_600)
            await sweep.step(on: ledger, logger: ServerTests.logger)
            #expect(try await finishWithoutMovingOn() == 1)  // the second, made due by the pass at start
            await sweep.step(on: ledger, logger: ServerTests.logger)
            clock.advance(by: 3_599)
            await sweep.step(on: ledger, logger: ServerTests.logger)
            #expect(try await finishWithoutMovingOn() == 0)  // the third waits for the next pass
            clock.advance(by: 1)
            await sweep.step(on: ledger, logger: ServerTests.logger)
            #expect(try await finishWithoutMovingOn() == 1)
        }
    }
}
