import AppleSimulator
import AppStoreServerAPI
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import ServerTestSupport
import Testing
@testable import ReceiptServer

/// Healing from Apple: a reconcile cycle against the offline Apple leaves a ledger that missed
/// half the notifications as if all had arrived, each in the log once.
@Suite(.timeLimit(.minutes(2)))
struct ReconcileTests {
    /// The ledgers' clock: the day after the simulator's notifications were signed.
    static let now = AppleSimulator.signedDate.addingTimeInterval(86_400)

    /// A subscription's life as Apple notified it: bought, renewed three times, the third
    /// renewal refunded; each notification a minute after the one before.
    static func notifications(_ simulator: AppleSimulator) -> [AppleSimulator.Members] {
        let start = AppleSimulator.signedDate
        func renewal(_ id: String, _ index: Int, revoked: Bool = false) -> AppleSimulator.Members {
            let purchased = start.addingTimeInterval(Double(index) * 30 * 86_400)
            return simulator.transaction(id: id, original: "11", environment: .production, purchased: purchased,
                                         expires: purchased.addingTimeInterval(30 * 86_400), revoked: revoked ? purchased.addingTimeInterval(3600) : nil)
        }
        let events: [(String, String?, AppleSimulator.Members)] = [
            ("SUBSCRIBED", "INITIAL_BUY", renewal("11", 0)), ("DID_RENEW", nil, renewal("12", 1)), ("DID_RENEW", nil, renewal("13", 2)),
            ("DID_RENEW", nil, renewal("14", 3)), ("REFUND", nil, renewal("13", 2, revoked: true)), ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", renewal("14", 3)),
        ]
        return events.enumerated().map { index, event in
            simulator.notification(event.0, subtype: event.1, transaction: event.2, environment: .production,
                                   signedDate: start.addingTimeInterval(Double(index + 1) * 60))
        }
    }

    static func withServer(_ simulator: AppleSimulator, port: Int?, setsAppAccountTokens: Bool = false, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await withTemporaryDirectory("reconcile") { directory in
            let ledger = Ledger(store: try SQLiteLedgerStore(path: directory.appendingPathComponent("ledger.sqlite").path), now: { Self.now })
            var settings: AppStoreSettings?
            if let port {
                let key = try ES256SigningKey(pkcs8: Array(simulator.privateKeyPEM.utf8))
                var client = AppStoreServerAPIConfiguration(
                    credentials: AppStoreCredentials(key: key, keyID: simulator.keyID, issuerID: simulator.issuerID, bundleID: simulator.bundleID),
                    environment: .production, productionURL: "http://127.0.0.1:\(port)/production",
                    sandboxURL: "http://127.0.0.1:\(port)/sandbox", trust: try AppleSimulator.trust())
                client.maxWait = 10
                settings = AppStoreSettings(client: client, reconcileSince: AppleSimulator.signedDate.addingTimeInterval(-3600),
                                            setsAppAccountTokens: setsAppAccountTokens)
            }
            let server = ServerLedger(ledger: ledger, token: try LedgerToken(LedgerFixtures.token), appStore: settings)
            let configuration = try SignedDataFixtures.configuration { configuration in
                configuration.acceptedBundleIDs = [ExactIdentifier(simulator.bundleID)]
                configuration.expectedEnvironment = .production
            }
            try await buildApplication(configuration, ledger: server, logger: ServerTests.logger).test(.live) { client in try await body(client) }
        }
    }

    static func post(_ client: some TestClientProtocol, _ simulator: AppleSimulator, _ notification: AppleSimulator.Members) async throws -> Int {
        let body = "{\"signedPayload\":\"\(simulator.signed(notification))\"}"
        return try await LedgerFixtures.send(client, .post, "/v2/notifications", body: body, authorization: nil).status
    }

    /// What a ledger says of the subscription and its notifications, to compare two ledgers.
    static func state(_ client: some TestClientProtocol) async throws -> (subscription: String, notifications: [String], deliveries: [Int]) {
        let subscription = try await LedgerFixtures.send(client, .get, "/v1/subscriptions/11?at=2025-08-15T00:00:00Z")
        #expect(subscription.status == 200)
        let logged = try await LedgerFixtures.send(client, .get, "/v1/notifications?originalTransactionId=11")
        let entries = logged.json["notifications"] as? [[String: Any]] ?? []
        let data = try JSONSerialization.data(withJSONObject: subscription.json, options: [.sortedKeys])
        return (String(decoding: data, as: UTF8.self), entries.compactMap { $0["notificationUUID"] as? String }.sorted(),
                entries.compactMap { $0["deliveries"] as? Int })
    }

    @Test func aCycleHealsWhatWasNeverDelivered() async throws {
        let simulator = try AppleSimulator()
        let notifications = Self.notifications(simulator)
        for (index, notification) in notifications.enumerated() {
            simulator.add(notification: notification, signedDate: AppleSimulator.signedDate.addingTimeInterval(Double(index + 1) * 60),
                          failed: index % 2 == 1, in: .production)
        }
        try await simulator.application.test(.live) { apple in
            let port = try #require(apple.port)
            // Every notification delivered: the ledger as it should be.
            let expectedBox = Box()
            try await Self.withServer(simulator, port: nil) { client in
                for notification in notifications { #expect(try await Self.post(client, simulator, notification) == 200) }
                expectedBox.value = try await Self.state(client)
            }
            let expected = expectedBox.value
            // Every other one lost on the way, then one cycle.
            try await Self.withServer(simulator, port: port) { client in
                for notification in notifications.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) {
                    #expect(try await Self.post(client, simulator, notification) == 200)
                }
                let cycle = try await LedgerFixtures.send(client, .post, "/v1/reconcile")
                #expect(cycle.status == 200, "\(cycle.json)")
                #expect(cycle.json["fetched"] as? Int == 6 && cycle.json["applied"] as? Int == 3 && cycle.json["repeats"] as? Int == 3, "\(cycle.json)")
                #expect(cycle.json["checkpoint"] as? String == "2025-06-02T12:00:00Z")
                let healed = try await Self.state(client)
                #expect(healed.subscription == expected?.subscription)
                #expect(healed.notifications == expected?.notifications && healed.notifications.count == 6)
                #expect(healed.deliveries == Array(repeating: 1, count: 6), "each notification counted once")

                // Again: nothing new; the window overlaps the last by ten minutes only.
                let again = try await LedgerFixtures.send(client, .post, "/v1/reconcile")
                #expect(again.status == 200 && again.json["applied"] as? Int == 0, "\(again.json)")
                let state = try await LedgerFixtures.send(client, .get, "/v1/reconcile")
                #expect(state.status == 200 && state.json["checkpoint"] as? String == "2025-06-02T12:00:00Z" && state.json["running"] as? Bool == false)

                // Support's button: the customer's history recorded, every transaction seen.
                let history = try await LedgerFixtures.send(client, .post, "/v1/reconcile/transactions/11")
                #expect(history.status == 502, "the simulator has no transactions, only notifications: \(history.json)")
            }
        }
    }

    final class Box: @unchecked Sendable {
        var value: (subscription: String, notifications: [String], deliveries: [Int])?
    }

    @Test func supportRecordsACustomersHistory() async throws {
        let simulator = try AppleSimulator()
        for id in ["21", "22"] {
            simulator.add(transaction: simulator.transaction(id: id, original: "21", environment: .production, expires: Self.now), in: .production)
        }
        try await simulator.application.test(.live) { apple in
            let port = try #require(apple.port)
            try await Self.withServer(simulator, port: port) { client in
                let history = try await LedgerFixtures.send(client, .post, "/v1/reconcile/transactions/22")
                #expect(history.status == 200 && history.json["recorded"] as? [String] == ["21", "22"], "\(history.json)")
                // Seen now: the subscription is the ledger's, with its latest renewal.
                let subscription = try await LedgerFixtures.send(client, .get, "/v1/subscriptions/21")
                #expect(subscription.status == 200, "\(subscription.json)")

                simulator.inject(.forgedToken)
                let forged = try await LedgerFixtures.send(client, .post, "/v1/reconcile/transactions/22")
                #expect(forged.status == 502 && (forged.json["error"] as? [String: Any])?["code"] as? String == "appStoreUnavailable")
            }
        }
    }

    /// A cycle asked for while another runs is refused; a cycle that fails leaves the checkpoint
    /// where it was and says why.
    @Test func aFailedOrConcurrentCycleMovesNothing() async throws {
        let simulator = try AppleSimulator()
        let notifications = Self.notifications(simulator)
        for (index, notification) in notifications.enumerated() {
            simulator.add(notification: notification, signedDate: AppleSimulator.signedDate.addingTimeInterval(Double(index + 1) * 60),
                          failed: false, in: .production)
        }
        try await simulator.application.test(.live) { apple in
            let port = try #require(apple.port)
            try await Self.withServer(simulator, port: port) { client in
                simulator.inject(.status(400, errorCode: 4000014, message: "Invalid pagination token."), endpoint: .notificationHistory)
                let failed = try await LedgerFixtures.send(client, .post, "/v1/reconcile")
                #expect(failed.status == 502 && (failed.json["error"] as? [String: Any])?["code"] as? String == "appStoreUnavailable")
                let state = try await LedgerFixtures.send(client, .get, "/v1/reconcile")
                #expect(state.json["checkpoint"] is NSNull, "\(state.json)")
                let last = try #require(state.json["last"] as? [String: Any])
                #expect((last["error"] as? String)?.contains("4000014") == true && last["applied"] as? Int == 0)

                let healed = try await LedgerFixtures.send(client, .post, "/v1/reconcile")
                #expect(healed.status == 200 && healed.json["applied"] as? Int == 6, "\(healed.json)")

                // A cycle asked for (on a connection of its own) while another waits on Apple: 409,
                // and the running one ends well. The running cycle holds the lease before it asks
                // Apple, so the second is sent once Apple has the first's request.
                simulator.inject(.hang(seconds: 3), endpoint: .notificationHistory)
                let before = simulator.requestsStarted
                async let running = LedgerFixtures.send(client, .post, "/v1/reconcile")
                let deadline = Date().addingTimeInterval(10)
                while simulator.requestsStarted == before && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(try #require(client.port))/v1/reconcile")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(LedgerFixtures.token)")
                let concurrent = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                let refusal = try JSONSerialization.jsonObject(with: Data(buffer: try await concurrent.body.collect(upTo: 1 << 16))) as? [String: Any]
                #expect(concurrent.status.code == 409 && (refusal?["error"] as? [String: Any])?["code"] as? String == "reconcileRunning",
                        "\(concurrent.status) \(String(describing: refusal))")
                let ran = try await running
                #expect(ran.status == 200 && ran.json["applied"] as? Int == 0, "\(ran.json)")
            }
        }
    }

    /// With --set-app-account-tokens, a credit of a subscription bought without an appAccountToken
    /// sets the user's bound token on its original transaction at Apple.
    @Test func aCreditSetsTheUsersTokenAtApple() async throws {
        let simulator = try AppleSimulator()
        let transaction = simulator.transaction(id: "31", environment: .production, expires: Self.now.addingTimeInterval(86_400))
        simulator.add(transaction: transaction, in: .production)
        try await simulator.application.test(.live) { apple in
            let port = try #require(apple.port)
            try await Self.withServer(simulator, port: port, setsAppAccountTokens: true) { client in
                let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
                #expect(try await LedgerFixtures.send(client, .put, "/v1/users/alice", body: "{\"appAccountToken\":\"\(token)\"}").status == 200)
                let credit = try await LedgerFixtures.send(client, .post, "/v1/credits",
                                                           body: "{\"user\":\"alice\",\"signedTransaction\":\"\(simulator.signed(transaction))\"}")
                #expect(credit.status == 200 && credit.json["credited"] as? [String] == ["31"], "\(credit.json)")
                for _ in 0..<100 where simulator.appAccountTokens(in: .production).isEmpty { try await Task.sleep(for: .milliseconds(50)) }
                #expect(simulator.appAccountTokens(in: .production) == ["31": token])
            }
        }
    }

    /// A transaction Apple signed with text no ledger database stores alike (a productId holding
    /// U+0000: SQLite would keep it, PostgreSQL refuse it): delivered, its notification is refused
    /// with 422 `unstorableText`; a cycle counts it refused and moves past it; support's history
    /// route refuses the transaction the same way; nothing of it is recorded.
    @Test func textTheLedgerCannotStoreIsRefusedByTheNotificationAndReconcileRoutes() async throws {
        let simulator = try AppleSimulator()
        let transaction = simulator.transaction(id: "41", product: "com.example\u{0}monthly", environment: .production,
                                                expires: Self.now.addingTimeInterval(86_400))
        let signedDate = AppleSimulator.signedDate.addingTimeInterval(60)
        let notification = simulator.notification("SUBSCRIBED", subtype: "INITIAL_BUY", transaction: transaction, environment: .production,
                                                  signedDate: signedDate)
        simulator.add(transaction: transaction, in: .production)
        simulator.add(notification: notification, signedDate: signedDate, failed: true, in: .production)
        try await simulator.application.test(.live) { apple in
            let port = try #require(apple.port)
            try await Self.withServer(simulator, port: port) { client in
                let delivered = try await LedgerFixtures.send(client, .post, "/v2/notifications",
                                                              body: "{\"signedPayload\":\"\(simulator.signed(notification))\"}", authorization: nil)
                #expect(delivered.status == 422 && RefusalShape.error(delivered.json)["code"] == "unstorableText", "\(delivered.json)")
                let cycle = try await LedgerFixtures.send(client, .post, "/v1/reconcile")
                #expect(cycle.status == 200 && cycle.json["fetched"] as? Int == 1 && cycle.json["refused"] as? Int == 1
                        && cycle.json["applied"] as? Int == 0 && cycle.json["checkpoint"] is String, "\(cycle.json)")
                let history = try await LedgerFixtures.send(client, .post, "/v1/reconcile/transactions/41")
                #expect(history.status == 422 && RefusalShape.error(history.json)["code"] == "unstorableText", "\(history.json)")
                let logged = try await LedgerFixtures.send(client, .get, "/v1/notifications")
                #expect((logged.json["notifications"] as? [Any])?.isEmpty == true, "\(logged.json)")
                #expect(try await LedgerFixtures.send(client, .get, "/v1/subscriptions/41").status == 404)
            }
        }
    }

    @Test func withoutCredentialsTheRoutesSaySo() async throws {
        try await Self.withServer(try AppleSimulator(), port: nil) { client in
            for (method, uri) in [(HTTPRequest.Method.post, "/v1/reconcile"), (.get, "/v1/reconcile"), (.post, "/v1/reconcile/transactions/1")] {
                let answer = try await LedgerFixtures.send(client, method, uri)
                #expect(answer.status == 404 && (answer.json["error"] as? [String: Any])?["code"] as? String == "appStoreNotConfigured")
                #expect(try await LedgerFixtures.send(client, method, uri, authorization: nil).status == 401)
            }
        }
    }
}
