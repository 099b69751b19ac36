import AppleSimulator
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptParser
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// The support page in a real headless browser (Debian's chromium): a form is pasted into and
/// submitted, and the rendered purchase table is read back from the browser's DOM.
let chromiumPath: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

// Serialized: each test runs a chromium, and two at once on two cores make each late.
@Suite(.serialized, .enabled(if: chromiumPath != nil, "chromium is not installed (apt-get install chromium)"))
struct BrowserTests {
    /// Runs chromium headless on `url` and returns the DOM after the page (and any navigation it
    /// starts) has loaded. Waits on a thread of its own: a blocked thread of Swift's cooperative
    /// pool (two on two cores) would leave the servers under test, and the other suites' tests,
    /// too few to answer the page in time.
    func renderedDOM(_ url: String) async throws -> String {
        guard let chromiumPath else { throw ChromiumMissing() }
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try Self.runChromium(chromiumPath, on: url) })
            }.start()
        }
    }

    struct ChromiumMissing: Error {}

    private static func runChromium(_ path: String, on url: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--user-data-dir=\(profile.path)", "--virtual-time-budget=10000", "--dump-dom", url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The DOM after a page that pastes `text` into the server's form submits it, as a person
    /// would; `marker` says the answer has arrived.
    func submitted(_ text: String, port: Int, awaiting marker: String) async throws -> String {
        try await submitted(["receipt": text], to: "/", port: port, awaiting: marker)
    }

    /// The DOM after a page that fills the server's form at `path` with `fields` submits it.
    func submitted(_ fields: KeyValuePairs<String, String>, to path: String, port: Int, awaiting marker: String) async throws -> String {
        let driver = FileManager.default.temporaryDirectory.appendingPathComponent("submit-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: driver) }
        let inputs = fields.map { "<textarea name=\"\($0.key)\">\(SupportPage.escape($0.value))</textarea>" }.joined()
        try Data("""
        <!doctype html><html><body onload="document.forms[0].submit()">
        <form method="post" action="http://127.0.0.1:\(port)\(path)">\(inputs)</form>
        </body></html>
        """.utf8).write(to: driver)
        // chromium's --dump-dom sometimes dumps while the navigation started on load is still
        // under way (an empty document, about one run in three here): up to three tries.
        var dom = ""
        for _ in 0..<3 where !dom.contains(marker) {
            dom = try await renderedDOM(driver.absoluteString)
        }
        return dom
    }

    @Test func pastedNotificationShowsItsTokens() async throws {
        let app = buildApplication(try SignedDataFixtures.configuration(), logger: ServerTests.logger)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let dom = try await submitted(try SignedDataFixtures.token("notification-subscribed.jws"), port: port, awaiting: "id=\"tokens\"")
            #expect(dom.contains("<p id=\"verdict\" class=\"verified\">VERIFIED (appStore, SHA-256, certificates valid at 2025-06-01T12:00:00Z)</p>"))
            let tokens = try #require(dom.components(separatedBy: "<pre id=\"tokens\">").last?.components(separatedBy: "</pre>").first)
            #expect(tokens.contains("Token:                        transaction (data.signedTransactionInfo)"))
            #expect(tokens.contains("notificationUUID:           \"2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e01\""))
            #expect(tokens.contains("expiresDate:              2025-07-01T11:59:00Z (1751371140000)"))
        }
    }

    @Test func pastedReceiptShowsItsPurchaseTable() async throws {
        let app = buildApplication(try ServerTests.testRootConfiguration(), logger: ServerTests.logger)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // The empty page, as a person first sees it.
            let empty = try await renderedDOM("http://127.0.0.1:\(port)/")
            #expect(empty.contains("<textarea id=\"receipt\" name=\"receipt\""))

            let base64 = Data(try Paths.fixture("sample.receipt")).base64EncodedString(options: [.lineLength64Characters])
            let dom = try await submitted(base64, port: port, awaiting: "id=\"purchases\"")

            #expect(dom.contains("VERIFIED (appStore, SHA-256"))
            let table = try #require(dom.components(separatedBy: "id=\"purchases\"").last?.components(separatedBy: "</table>").first)
            let rows = table.components(separatedBy: "<tr>").filter { $0.contains("<td>") }
            #expect(rows.count == 3)
            #expect(rows.contains { $0.contains("<td>com.example.unlock</td>") && $0.contains("<td>REFUNDED</td>") })
            #expect(rows.contains { $0.contains("<td>com.example.pro.monthly</td>") && $0.contains("<td>2025-06-20T09:30:00Z</td>") })
            #expect(rows.contains { $0.contains("<td>com.example.coins.100</td>") && $0.contains("<td>3</td>") })
        }
    }

    /// The ledger lookup: nothing without the token, then a user's credits and the missed orders,
    /// every value from the ledger escaped (a user id that is markup stays text).
    @Test func theLedgerLookupShowsCreditsAndMissedOrders() async throws {
        let user = "<b id=\"injected\">alice</b>&amp;"
        try await LedgerFixtures.withServer { client, _ in
            let port = try #require(client.port)
            let credit = try await LedgerFixtures.send(client, .post, "/v1/credits", body: try LedgerFixtures.receiptCredit(user: user))
            #expect(credit.status == 200)
            #expect(try await SignedDataFixtures.answer(client, "/v2/notifications",
                                                        ByteBuffer(bytes: try SignedDataFixtures.file("body-signed-payload.json"))).status == 200)

            let empty = try await renderedDOM("http://127.0.0.1:\(port)/")
            #expect(empty.contains("<input id=\"ledger-token\" name=\"token\" type=\"password\""))

            let refused = try await submitted(["token": "wrong-token-wrong-token", "user": user], to: "/ledger", port: port, awaiting: "ledger-error")
            #expect(refused.contains("<p id=\"ledger-error\" class=\"failed\">The ledger token is missing or wrong.</p>"))
            #expect(!refused.contains("id=\"credits\"") && !refused.contains("id=\"missed\""))

            let dom = try await submitted(["token": LedgerFixtures.token, "user": user], to: "/ledger", port: port, awaiting: "id=\"missed\"")
            #expect(!dom.contains(LedgerFixtures.token))
            #expect(!dom.contains("<b id="))
            #expect(dom.contains("<h3>Credits of &lt;b id=\"injected\"&gt;alice&lt;/b&gt;&amp;amp;: 2</h3>"))
            let credits = try #require(dom.components(separatedBy: "id=\"credits\"").last?.components(separatedBy: "</table>").first)
            let rows = credits.components(separatedBy: "<tr>").filter { $0.contains("<td>") }
            #expect(rows.count == 2)
            #expect(rows.contains { $0.contains("<td>2000000000000002</td><td>com.example.pro.monthly</td>") })
            // The purchase refunded before it was credited is a missed order, shown with its revocation;
            // then the notification's transaction, which the app never reported.
            let missed = try #require(dom.components(separatedBy: "id=\"missed\"").last?.components(separatedBy: "</table>").first)
            let missedRows = missed.components(separatedBy: "<tr>").filter { $0.contains("<td>") }
            #expect(missedRows.count == 2)
            #expect(missedRows.first?.contains("<td>2000000000000003</td><td>2000000000000003</td><td>com.example.unlock</td>") == true)
            #expect(missedRows.first?.contains("<td>cancelled in receipt</td>") == true)
            #expect(missedRows.last?.contains("<td>2000000000000201</td><td>2000000000000100</td><td>com.example.pro.monthly</td>") == true)
        }
    }

    /// The ledger lookup asks Apple for an order id with the server's key: its verified
    /// transactions in a table; Apple's refusal and the order id itself shown as text.
    @Test func theOrderLookupAsksApple() async throws {
        let simulator = try AppleSimulator()
        simulator.add(transaction: simulator.transaction(id: "41", environment: .production, expires: ReconcileTests.now), in: .production, orderId: "MQ7X2R9ZK1")
        try await simulator.application.test(.live) { apple in
            let applePort = try #require(apple.port)
            try await ReconcileTests.withServer(simulator, port: applePort) { client in
                let port = try #require(client.port)
                let dom = try await submitted(["token": LedgerFixtures.token, "order": "MQ7X2R9ZK1"], to: "/ledger", port: port, awaiting: "id=\"order\"")
                #expect(dom.contains("<h3>Order MQ7X2R9ZK1: 1 transactions, verified</h3>"))
                let order = try #require(dom.components(separatedBy: "id=\"order\"").last?.components(separatedBy: "</table>").first)
                #expect(order.contains("<td>41</td><td>41</td><td>com.example.monthly</td><td>Production</td>"), "\(order)")
                #expect(!dom.contains(simulator.keyID) && !dom.contains("BEGIN PRIVATE KEY"))

                // Three: chromium may submit the form up to three times (see submitted).
                simulator.inject(.status(400, errorCode: 4000006, message: "<img src=x onerror=alert(1)>"), times: 3)
                let failed = try await submitted(["token": LedgerFixtures.token, "order": "<b>M1</b>"], to: "/ledger", port: port, awaiting: "order-error")
                #expect(failed.contains("Order &lt;b&gt;M1&lt;/b&gt; could not be looked up"), "\(failed)")
                #expect(failed.contains("errorCode 4000006, errorMessage &quot;&lt;img src=x onerror=alert(1)&gt;&quot;")
                        || failed.contains("errorCode 4000006, errorMessage \"&lt;img src=x onerror=alert(1)&gt;\""), "\(failed)")
                #expect(!failed.contains("<img") && !failed.contains("<b>M1"))
            }
        }
    }
}
