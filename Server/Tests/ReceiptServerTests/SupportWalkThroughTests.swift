import AppleSimulator
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import ServerTestSupport
import Testing
@testable import ReceiptServer

/// Server/README.md's support walk-through, run: a customer's order id → what Apple says it bought
/// (`receipt-dump api order`, the built program) → the purchase recorded in the ledger from Apple
/// → credited to the customer. With RECEIPT_WALKTHROUGH=FILE the commands and their answers are
/// written there, for the README.
struct SupportWalkThroughTests {
    /// receipt-dump-api with the key in APP_STORE_* variables, as support staff set them.
    static func api(_ arguments: [String], simulator: AppleSimulator, port: Int) async throws -> (status: Int32, output: String) {
        let run = try await simulator.runReceiptDumpAPI(arguments, port: port, credentials: false, environment: [
            "APP_STORE_KEY_FILE": "KEYFILE", "APP_STORE_KEY_ID": simulator.keyID, "APP_STORE_ISSUER_ID": simulator.issuerID,
            "APP_STORE_BUNDLE_ID": simulator.bundleID, "NO_COLOR": "1",
        ])
        return (run.status, run.output)
    }

    @Test func anOrderIdBecomesACredit() async throws {
        let simulator = try AppleSimulator()
        let purchased = ReconcileTests.now.addingTimeInterval(-3600)
        let transaction = simulator.transaction(id: "2000000000000501", product: "com.example.pro.monthly", environment: .production,
                                                purchased: purchased, expires: purchased.addingTimeInterval(30 * 86_400))
        simulator.add(transaction: transaction, in: .production, orderId: "MQ7X2R9ZK1")
        let transcript = Transcript()
        do {
            try await simulator.application.test(.live) { apple in
                let port = try #require(apple.port)
                // 1. The customer's Apple email names the order: what did it buy?
                let order = try await Self.api(["order", "MQ7X2R9ZK1"], simulator: simulator, port: port)
                #expect(order.status == 0 && order.output.contains("transactionId:              \"2000000000000501\""), "\(order.output)")
                transcript.text += "$ receipt-dump api order MQ7X2R9ZK1\n" + order.output

                try await ReconcileTests.withServer(simulator, port: port) { client in
                    // 2. The server fetches the customer's history from Apple and records it.
                    let recorded = try await LedgerFixtures.send(client, .post, "/v1/reconcile/transactions/2000000000000501")
                    #expect(recorded.status == 200 && recorded.json["recorded"] as? [String] == ["2000000000000501"])
                    transcript.text += "$ curl -s -X POST -H \"$auth\" localhost:8080/v1/reconcile/transactions/2000000000000501\n"
                    transcript.text += try Self.compact(recorded.json) + "\n"
                    // 3. Credited to the customer, with the signed transaction Apple answered.
                    let info = try await Self.api(["transaction", "2000000000000501", "--format", "json"], simulator: simulator, port: port)
                    let answer = try #require(try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any])
                    let body = try #require((answer["answers"] as? [[String: Any]])?.first?["body"] as? [String: Any])
                    let token = try #require(body["signedTransactionInfo"] as? String)
                    transcript.text += "$ token=$(receipt-dump api transaction 2000000000000501 --format json | jq -r '.answers[0].body.signedTransactionInfo')\n"
                    let credit = try await LedgerFixtures.send(client, .post, "/v1/credits", body: "{\"user\":\"alice\",\"signedTransaction\":\"\(token)\"}")
                    #expect(credit.status == 200 && credit.json["credited"] as? [String] == ["2000000000000501"], "\(credit.json)")
                    transcript.text += "$ curl -s -H \"$auth\" localhost:8080/v1/credits -d \"{\\\"user\\\":\\\"alice\\\",\\\"signedTransaction\\\":\\\"$token\\\"}\"\n"
                    transcript.text += try Self.compact(credit.json) + "\n"
                }
            }
        }
        if let file = ProcessInfo.processInfo.environment["RECEIPT_WALKTHROUGH"] {
            try transcript.text.write(toFile: file, atomically: true, encoding: .utf8)
        }
    }

    final class Transcript: @unchecked Sendable {
        var text = ""
    }

    static func compact(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
