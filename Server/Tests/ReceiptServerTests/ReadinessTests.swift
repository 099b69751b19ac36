import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import Testing
@testable import ReceiptServer

/// `GET /health/ready`: 200 when the server can serve, 503 in the one refusal shape when its
/// ledger cannot be reached within the deadline; `/health` stays liveness only.
@Suite(.serialized) struct ReadinessTests {
    /// A store whose every call fails, or never answers.
    struct BrokenStore: LedgerStore {
        let hangs: Bool
        func fail() async throws(LedgerError) -> Never {
            if hangs { try? await Task.sleep(for: .seconds(30)) }
            throw .storageUnavailable("the test store is broken")
        }
        func recordSeen(_ transactions: [LedgerTransaction], renewalInfos: [SignedRenewalInfo], at now: Date) async throws(LedgerError) { try await fail() }
        func recordAndClaim(_ seen: [LedgerTransaction], claiming transactionIds: [String], for user: String, at now: Date)
            async throws(LedgerError) -> ClaimAnswer { try await fail() }
        func bind(user: String, appAccountToken: String, at now: Date) async throws(LedgerError) { try await fail() }
        func uncredited(firstSeenBefore date: Date, limit: Int) async throws(LedgerError) -> [SeenTransaction] { try await fail() }
        func credits(of user: String, limit: Int) async throws(LedgerError) -> [Credit] { try await fail() }
        func recordNotification(_ notification: LedgerNotification, seen: [LedgerTransaction], renewalInfo: SignedRenewalInfo?,
                                at now: Date) async throws(LedgerError) { try await fail() }
        func notifications(originalTransactionId: String?, limit: Int) async throws(LedgerError) -> [LoggedNotification] { try await fail() }
        func claimWebhookEvents(for worker: String, until: Date, at now: Date, limit: Int) async throws(LedgerError) -> [WebhookEvent] { try await fail() }
        func finishWebhookAttempts(_ attempts: [WebhookAttempt], by worker: String, at now: Date) async throws(LedgerError) { try await fail() }
        func releaseStrandedWebhookEvents(after cursor: String?, limit: Int, at now: Date) async throws(LedgerError)
            -> (cursor: String?, released: Int) { try await fail() }
        func failedWebhookEvents(limit: Int) async throws(LedgerError) -> [WebhookEvent] { try await fail() }
        func retryWebhookEvent(_ id: String, at now: Date) async throws(LedgerError) -> Bool { try await fail() }
        func subscriptions(ownedBy user: String) async throws(LedgerError) -> SubscriptionSnapshots { try await fail() }
        func owner(ofSubscription originalTransactionId: String) async throws(LedgerError) -> String? { try await fail() }
        func snapshots(ofSubscription originalTransactionId: String) async throws(LedgerError) -> SubscriptionSnapshots? { try await fail() }
        func markRevoked(transactionId: String, at date: Date, reason: String) async throws(LedgerError) -> Bool { try await fail() }
        func clearRevocation(transactionId: String) async throws(LedgerError) -> Bool { try await fail() }
        func revokedCredits(limit: Int) async throws(LedgerError) -> [Credit] { try await fail() }
        func claimReconcile(_ name: String, by worker: String, until: Date, at now: Date) async throws(LedgerError) -> ReconcileState? { try await fail() }
        func finishReconcile(_ name: String, by worker: String, outcome: ReconcileOutcome, at now: Date) async throws(LedgerError) { try await fail() }
        func reconcileState(_ name: String) async throws(LedgerError) -> ReconcileState? { try await fail() }
        func renewReconcile(_ name: String, by worker: String, until: Date, at now: Date) async throws(LedgerError) -> Bool { try await fail() }
        func isNotificationLogged(_ uuid: String) async throws(LedgerError) -> Bool { try await fail() }
        func appAccountToken(of user: String) async throws(LedgerError) -> String? { try await fail() }
        func updateAPIBudget(_ key: String, _ update: @escaping @Sendable (APIBudget) -> (APIBudget, Date?)) async throws(LedgerError) -> Date? { try await fail() }
    }

    static func ready(_ client: some TestClientProtocol) async throws -> (status: Int, json: [String: Any], headers: HTTPFields) {
        try await LedgerFixtures.send(client, .get, "/health/ready", authorization: nil)
    }

    static func expectNotReady(_ answer: (status: Int, json: [String: Any], headers: HTTPFields), sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answer.status == 503, sourceLocation: sourceLocation)
        #expect(answer.headers[.retryAfter] == "1", sourceLocation: sourceLocation)
        #expect(RefusalShape.error(answer.json, verification: false, sourceLocation: sourceLocation)["code"] == "ledgerUnavailable",
                sourceLocation: sourceLocation)
    }

    @Test func readyWithoutALedgerAndWithSQLite() async throws {
        try await buildApplication(try ServerTests.testRootConfiguration(), logger: ServerTests.logger).test(.live) { client in
            let answer = try await Self.ready(client)
            #expect(answer.status == 200)
            #expect(answer.json["status"] as? String == "ready")
        }
        try await LedgerFixtures.withServer { client, _ in
            let answer = try await Self.ready(client)
            #expect(answer.status == 200)
            #expect(answer.json["status"] as? String == "ready")
        }
    }

    @Test func aLedgerThatFailsOrNeverAnswersIsNotReadyButLive() async throws {
        try await LedgerFixtures.withServer(makeStore: { _ in BrokenStore(hangs: false) }) { client, _ in
            Self.expectNotReady(try await Self.ready(client))
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
        }
        try await LedgerFixtures.withServer(makeStore: { _ in BrokenStore(hangs: true) }) { client, _ in
            let clock = ContinuousClock()
            var answer: (status: Int, json: [String: Any], headers: HTTPFields)?
            let took = try await clock.measure { answer = try await Self.ready(client) }
            Self.expectNotReady(try #require(answer))
            #expect(took >= .milliseconds(1900) && took < .seconds(4), "answered after \(took)")
            #expect((answer?.json["error"] as? [String: Any])?["reason"] as? String == "the ledger's database did not answer within 2.0 seconds")
        }
    }

    /// PostgreSQL reached through a loopback relay that the test then stops, as a database server
    /// that stops would: ready before, 503 after, within the deadline; /health stays 200.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["RECEIPT_LEDGER_POSTGRES_URL"] != nil,
                   "needs RECEIPT_LEDGER_POSTGRES_URL (Server/scripts/with-postgres)"))
    func aStoppedPostgreSQLIsNotReady() async throws {
        let url = try #require(URLComponents(string: ProcessInfo.processInfo.environment["RECEIPT_LEDGER_POSTGRES_URL"] ?? ""))
        let relay = try Relay(to: url.host ?? "127.0.0.1", port: url.port ?? 5432)
        defer { relay.stop() }
        var relayed = url
        relayed.host = "127.0.0.1"
        relayed.port = relay.port
        let store = try await PostgresLedgerStore(url: try #require(relayed.string))
        try await LedgerFixtures.withServer(makeStore: { _ in store }) { client, _ in
            #expect(try await Self.ready(client).status == 200)
            relay.stop()
            let clock = ContinuousClock()
            var answer: (status: Int, json: [String: Any], headers: HTTPFields)?
            let took = try await clock.measure { answer = try await Self.ready(client) }
            Self.expectNotReady(try #require(answer))
            #expect(took < .seconds(4), "answered after \(took)")  // a 2 s deadline, with room for a loaded machine
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
        }
        await store.close()
    }

    /// A TCP relay on loopback (python3), killed to stop the database behind it.
    final class Relay: @unchecked Sendable {
        let port: Int
        private let process: Process

        init(to host: String, port target: Int) throws {
            let script = """
            import socket, sys, threading
            server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(("127.0.0.1", 0)); server.listen(64)
            print(server.getsockname()[1], flush=True)
            def pipe(a, b):
                try:
                    while True:
                        data = a.recv(65536)
                        if not data: break
                        b.sendall(data)
                except OSError: pass
                finally:
                    for s in (a, b):
                        try: s.shutdown(socket.SHUT_RDWR)
                        except OSError: pass
            while True:
                client, _ = server.accept()
                upstream = socket.create_connection((sys.argv[1], int(sys.argv[2])))
                threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
                threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
            """
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script, host, String(target)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                process.terminate()
                throw CocoaError(.fileReadCorruptFile)
            }
            self.port = port
            self.process = process
        }

        /// Kills the relay: its port and every connection through it close at once.
        func stop() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
