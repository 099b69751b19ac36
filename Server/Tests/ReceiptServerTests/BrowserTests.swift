import AppleSimulator
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptParser
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// The support page in a real headless browser (Debian's chromium, driven through WebDriver):
/// a person's steps, fields typed or pasted into, the button clicked, and the rendered answer read
/// back from the browser's DOM.
// Serialized: each test runs a chromium, and two at once on two cores make each late.
@Suite(.serialized, .enabled(if: WebDriverBrowser.chromiumPath != nil && WebDriverBrowser.chromedriverPath != nil,
                             "chromium or chromedriver is not installed (scripts/bootstrap --server)"))
struct BrowserTests {
    /// Opens the support page on `port`, pastes `text` into its receipt field and clicks Check;
    /// the DOM once `marker` shows the answer has arrived.
    func submitted(_ text: String, port: Int, awaiting marker: String) async throws -> String {
        try await WebDriverBrowser.withBrowser { browser in
            try await browser.open("http://127.0.0.1:\(port)/")
            try await browser.paste(text, into: "#receipt")
            try await browser.click("form[action='/'] button[type=submit]")
            return try await browser.source(containing: marker)
        }
    }

    /// Opens the support page on `port`, types `fields` (by element id) into the ledger form and
    /// clicks Look up; the DOM once `marker` shows the answer has arrived.
    func lookedUp(_ fields: KeyValuePairs<String, String>, port: Int, awaiting marker: String) async throws -> String {
        try await WebDriverBrowser.withBrowser { browser in
            try await browser.open("http://127.0.0.1:\(port)/")
            for (id, value) in fields {
                try await browser.type(value, into: "#\(id)")
            }
            try await browser.click("form[action='/ledger'] button[type=submit]")
            return try await browser.source(containing: marker)
        }
    }

    /// The page as a person first sees it.
    func emptyPage(port: Int, awaiting marker: String) async throws -> String {
        try await WebDriverBrowser.withBrowser { browser in
            try await browser.open("http://127.0.0.1:\(port)/")
            return try await browser.source(containing: marker)
        }
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
            let empty = try await emptyPage(port: port, awaiting: "id=\"receipt\"")
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

            let empty = try await emptyPage(port: port, awaiting: "id=\"ledger-token\"")
            #expect(empty.contains("<input id=\"ledger-token\" name=\"token\" type=\"password\""))

            let refused = try await lookedUp(["ledger-token": "wrong-token-wrong-token", "ledger-user": user], port: port, awaiting: "ledger-error")
            #expect(refused.contains("<p id=\"ledger-error\" class=\"failed\">The ledger token is missing or wrong.</p>"))
            #expect(!refused.contains("id=\"credits\"") && !refused.contains("id=\"missed\""))

            let dom = try await lookedUp(["ledger-token": LedgerFixtures.token, "ledger-user": user], port: port, awaiting: "id=\"missed\"")
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
                let dom = try await lookedUp(["ledger-token": LedgerFixtures.token, "ledger-order": "MQ7X2R9ZK1"], port: port, awaiting: "id=\"order\"")
                #expect(dom.contains("<h3>Order MQ7X2R9ZK1: 1 transactions, verified</h3>"))
                let order = try #require(dom.components(separatedBy: "id=\"order\"").last?.components(separatedBy: "</table>").first)
                #expect(order.contains("<td>41</td><td>41</td><td>com.example.monthly</td><td>Production</td>"), "\(order)")
                #expect(!dom.contains(simulator.keyID) && !dom.contains("BEGIN PRIVATE KEY"))

                simulator.inject(.status(400, errorCode: 4000006, message: "<img src=x onerror=alert(1)>"))
                let failed = try await lookedUp(["ledger-token": LedgerFixtures.token, "ledger-order": "<b>M1</b>"], port: port, awaiting: "order-error")
                #expect(failed.contains("Order &lt;b&gt;M1&lt;/b&gt; could not be looked up"), "\(failed)")
                #expect(failed.contains("errorCode 4000006, errorMessage &quot;&lt;img src=x onerror=alert(1)&gt;&quot;")
                        || failed.contains("errorCode 4000006, errorMessage \"&lt;img src=x onerror=alert(1)&gt;\""), "\(failed)")
                #expect(!failed.contains("<img") && !failed.contains("<b>M1"))
            }
        }
    }
}
