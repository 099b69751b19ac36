import AppleSimulator
import Foundation
import ReceiptParser
import Testing

/// `receipt-dump api` as support staff run it: the built program against the offline Apple, its
/// output, and the exit status of each failure class within its deadline.
@Suite(.timeLimit(.minutes(3)))
struct ReceiptDumpAPITests {
    typealias Run = AppleSimulator.ReceiptDumpAPIRun

    static func run(_ simulator: AppleSimulator, port: Int, _ arguments: [String], credentials: Bool = true,
                    environment: [String: String] = [:]) async throws -> Run {
        try await simulator.runReceiptDumpAPI(arguments, port: port, credentials: credentials, environment: environment)
    }

    static func withLiveSimulator(_ body: @Sendable (AppleSimulator, Int) async throws -> Void) async throws {
        let simulator = try AppleSimulator()
        addSubscription(to: simulator, in: .production)
        try await simulator.application.test(.live) { client in try await body(simulator, client.port!) }
    }

    /// Support's walk-through: the order id from the customer's email, its transaction, the
    /// customer's history and subscriptions; every value verified, exit 0.
    @Test func supportLooksUpAnOrder() async throws {
        try await Self.withLiveSimulator { simulator, port in
            let order = try await Self.run(simulator, port: port, ["order", "MORDER1"])
            #expect(order.status == 0, "\(order.errors)")
            #expect(order.output.contains("status: 0") && order.output.contains("transactionId:              \"1\"")
                    && order.output.contains("VERIFIED"), "\(order.output)")

            let history = try await Self.run(simulator, port: port, ["history", "1", "--format", "json"])
            #expect(history.status == 0, "\(history.errors)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [String: Any])
            let answers = try #require(json["answers"] as? [[String: Any]])
            #expect(answers.count == 2 && json["status"] as? Int == 0)
            let verdicts = answers.compactMap { ($0["report"] as? [String: Any])?["verdict"] as? String }
            #expect(verdicts == ["verified", "verified"])

            let statuses = try await Self.run(simulator, port: port, ["subscriptions", "1"])
            #expect(statuses.status == 0 && statuses.output.contains("data[0].lastTransactions[0].status: 1"), "\(statuses.output)")

            let failed = try await Self.run(simulator, port: port, ["notifications", "--start", "2025-06-01T00:00:00Z",
                                                                    "--end", "2025-06-02T00:00:00Z", "--only-failures"])
            #expect(failed.status == 0 && failed.output.contains("TIMED_OUT") && !failed.output.contains("SUCCESS"), "\(failed.output)")

            let extended = try await Self.run(simulator, port: port, ["extend", "1", "--days", "7", "--reason", "1"])
            #expect(extended.status == 0 && extended.output.contains("success: true"), "\(extended.output)")
            // Apple answering that it did not extend is a refusal, not an answer to show as done.
            simulator.inject(.member("success", .bool(false)), endpoint: .extendRenewalDate)
            let notExtended = try await Self.run(simulator, port: port, ["extend", "1", "--days", "7", "--reason", "1"])
            #expect(notExtended.status == 1 && notExtended.errors.contains("Apple did not extend the renewal date"), "\(notExtended.errors)")
            let test = try await Self.run(simulator, port: port, ["test-notification"])
            #expect(test.status == 0 && test.output.contains("testNotificationToken"), "\(test.output)")
            let app = try await Self.run(simulator, port: port, ["app-transaction", "1"])
            #expect(app.status == 0, "\(app.errors)")
            #expect(try await Self.run(simulator, port: port, ["refunds", "1"]).status == 0)
            #expect(extended.output.contains("effectiveDate: 20"), "instants as RFC 3339: \(extended.output)")
            #expect(try await Self.run(simulator, port: port, ["transaction", "2"]).status == 0)
        }
    }

    /// --environment picks the host: sandbox asks only --sandbox-api-url; auto asks production
    /// first and sandbox when production does not know the app (401 before its first release).
    @Test func theEnvironmentPicksTheHost() async throws {
        let simulator = try AppleSimulator()
        addSubscription(to: simulator, in: .sandbox, ids: ["7", "8"])
        try await simulator.application.test(.live) { client in
            let port = client.port!
            let sandbox = try await Self.run(simulator, port: port, ["transaction", "7", "--environment", "sandbox"])
            #expect(sandbox.status == 0 && sandbox.output.contains("(Sandbox)"), "\(sandbox.status) \(sandbox.output) \(sandbox.errors)")
            #expect(simulator.requests.map(\.environment) == [.sandbox])

            let production = try await Self.run(simulator, port: port, ["transaction", "7"])
            #expect(production.status == 1 && production.errors.contains("4040010"), "\(production.errors)")
            #expect(simulator.requests.last?.environment == .production)

            simulator.unreleased = true
            let before = simulator.requests.count
            let auto = try await Self.run(simulator, port: port, ["transaction", "7", "--environment", "auto"])
            #expect(auto.status == 0 && auto.output.contains("(Sandbox)"), "\(auto.status) \(auto.errors)")
            #expect(simulator.requests.dropFirst(before).map { "\($0.environment) \($0.status)" } == ["production 401", "sandbox 200"])
        }
    }

    /// `notifications --transaction-id` asks for one customer's notifications only; `--at` judges
    /// every signed value at that instant (before the test PKI's certificates: not verified, 1).
    @Test func oneCustomersNotificationsAndTheInstantJudged() async throws {
        let simulator = try AppleSimulator()
        addSubscription(to: simulator, in: .production)
        addSubscription(to: simulator, in: .production, ids: ["7", "8"])
        try await simulator.application.test(.live) { client in
            let port = client.port!
            func notifications(_ extra: [String]) async throws -> [String] {
                let run = try await Self.run(simulator, port: port, ["notifications", "--start", "2025-06-01T00:00:00Z",
                                                                     "--end", "2025-06-02T00:00:00Z", "--format", "json"] + extra)
                #expect(run.status == 0, "\(run.errors)")
                let json = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
                let answers = try #require(json["answers"] as? [[String: Any]])
                // Each notification's own transaction, as the report shows it (nested, verified).
                return answers.flatMap { (($0["report"] as? [String: Any])?["tokens"] as? [[String: Any]]) ?? [] }
                    .flatMap { ($0["nested"] as? [[String: Any]]) ?? [] }
                    .compactMap { ($0["payload"] as? [String: Any])?["originalTransactionId"] as? String }
            }
            let everyone = try await notifications([])
            #expect(everyone.count == 7 && Set(everyone) == ["1", "7"], "\(everyone)")
            let one = try await notifications(["--transaction-id", "8"])
            #expect(one == ["7", "7", "7"], "\(one)")

            #expect(try await Self.run(simulator, port: port, ["transaction", "1", "--at", "2025-06-01T00:00:00Z"]).status == 0)
            let early = try await Self.run(simulator, port: port, ["transaction", "1", "--at", "2020-06-01T00:00:00Z"])
            #expect(early.status == 1 && early.errors.contains("signedTransactionInfo is not verified"), "\(early.status) \(early.errors)")
        }
    }

    /// Nothing listening where Apple should be: no answer (3), naming the host and the refusal,
    /// once the retries are used up, long before the wait bound.
    @Test func aRefusedConnectionIsNoAnswer() async throws {
        let simulator = try AppleSimulator()  // not started: only its key and the command's helper
        // Port 1 (tcpmux): nothing listens there on a test machine, so connecting is refused.
        let run = try await Self.run(simulator, port: 1, ["transaction", "1", "--max-wait", "60"])
        #expect(run.status == 3 && run.errors.contains("no answer from 127.0.0.1") && run.errors.contains("refused")
                && run.errors.contains("after 4 attempts"), "\(run.status) \(run.errors)")
        #expect(run.seconds < 30, "\(run.seconds) s")
    }

    /// Credentials from APP_STORE_* variables; none at all is a usage error (64).
    @Test func credentialsComeFromTheEnvironment() async throws {
        try await Self.withLiveSimulator { simulator, port in
            let variables = ["APP_STORE_KEY_FILE": "KEYFILE", "APP_STORE_KEY_ID": simulator.keyID,
                             "APP_STORE_ISSUER_ID": simulator.issuerID, "APP_STORE_BUNDLE_ID": simulator.bundleID]
            let run = try await Self.run(simulator, port: port, ["transaction", "1"], credentials: false, environment: variables)
            #expect(run.status == 0, "\(run.errors)")
            let none = try await Self.run(simulator, port: port, ["transaction", "1"], credentials: false)
            #expect(none.status == 64 && none.errors.contains("--key-file"), "\(none.errors)")
        }
    }

    /// Each failure class has its exit status and says what failed; Apple's words are escaped.
    @Test func failuresEndWithTheirExitStatus() async throws {
        try await Self.withLiveSimulator { simulator, port in
            simulator.inject(.status(400, errorCode: 4000006, message: "bad \u{1B}[31mid\u{07}"))
            let refused = try await Self.run(simulator, port: port, ["transaction", "1"])
            #expect(refused.status == 1 && refused.errors.contains("errorCode 4000006") && refused.errors.contains("bad"), "\(refused.errors)")
            #expect(!refused.errors.utf8.contains(0x1B) && !refused.errors.utf8.contains(0x07))

            simulator.inject(.forgedToken)
            let forged = try await Self.run(simulator, port: port, ["transaction", "1"])
            #expect(forged.status == 1 && forged.errors.contains("signedTransactionInfo is not verified"), "\(forged.errors)")

            let invalidOrder = try await Self.run(simulator, port: port, ["order", "MNOSUCH"])
            #expect(invalidOrder.status == 1 && invalidOrder.errors.contains("not valid"), "\(invalidOrder.errors)")

            simulator.inject(.oversized(bytes: 50_000))
            let oversized = try await Self.run(simulator, port: port, ["transaction", "1", "--max-answer-bytes", "2000"])
            #expect(oversized.status == 2 && oversized.errors.contains("over the cap"), "\(oversized.errors)")

            simulator.inject(.repeatingPage, times: 2)
            let repeating = try await Self.run(simulator, port: port, ["history", "1", "--format", "json"])
            #expect(repeating.status == 2 && repeating.output.contains("\"status\" : 2"), "\(repeating.output)")

            let usage = try await Self.run(simulator, port: port, ["extend", "1", "--days", "91", "--reason", "1"])
            #expect(usage.status == 64)
            #expect(try await Self.run(simulator, port: port, ["transaction", "1", "--timeout", "1e300"]).status == 64)

            // A token that is not a JWS, and an answer that is not JSON: unreadable (2).
            simulator.inject(.member("signedTransactionInfo", .string("not-a-token")), endpoint: .transactionInfo)
            let malformed = try await Self.run(simulator, port: port, ["transaction", "1"])
            #expect(malformed.status == 2 && malformed.errors.contains("signedTransactionInfo"), "\(malformed.status) \(malformed.errors)")
            simulator.inject(.notJSON)
            let notJSON = try await Self.run(simulator, port: port, ["transaction", "1"])
            #expect(notJSON.status == 2, "\(notJSON.status) \(notJSON.errors)")

            // Apple holding the endpoint past --max-wait: no answer.
            simulator.inject(.rateLimit(after: 30))
            let limited = try await Self.run(simulator, port: port, ["transaction", "1", "--max-wait", "1"])
            #expect(limited.status == 3 && limited.errors.contains("429"), "\(limited.errors)")

            // An id pasted with terminal controls is shown as text.
            let hostile = try await Self.run(simulator, port: port, ["transaction", "1\u{1B}]0;owned\u{07}"])
            #expect(hostile.status == 1 && !hostile.errors.utf8.contains(0x1B) && !hostile.errors.utf8.contains(0x07), "\(hostile.errors)")

            // Last: a server that never answers (what is left of these faults hangs the simulator's teardown only).
            simulator.inject(.hang(seconds: 8), times: 3)
            let silent = try await Self.run(simulator, port: port, ["transaction", "1", "--timeout", "0.5", "--max-wait", "1.2"])
            #expect(silent.status == 3 && silent.errors.contains("no answer from 127.0.0.1") && silent.seconds < 5, "\(silent.status) \(silent.errors) \(silent.seconds)")
        }
    }
}
