import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ReceiptParser
import Testing
@testable import ReceiptServer

/// Tokens on the support page, in the log, and under the verification gate.
struct SignedDataPageAndLogTests {
    typealias Fixtures = SignedDataFixtures

    static func page(_ client: some TestClientProtocol, pasting text: String) async throws -> String {
        try await client.execute(uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                 body: HostileRequestServerTests.form(text)) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            return String(buffer: response.body)
        }
    }

    @Test func thePageShowsAPastedToken() async throws {
        try await buildApplication(try Fixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            let page = try await Self.page(client, pasting: try Fixtures.token("notification-subscribed.jws"))
            #expect(page.contains("<p id=\"verdict\" class=\"verified\">VERIFIED (appStore, SHA-256, certificates valid at 2025-06-01T12:00:00Z)</p>"))
            #expect(page.contains("<pre id=\"tokens\">  Token:                        notification\n"))
            #expect(page.contains("Token:                        transaction (data.signedTransactionInfo)"))
            #expect(page.contains("Token:                        renewal info (data.signedRenewalInfo)"))
            #expect(page.contains("[2] CN=ReceiptParser Test Root CA - G3,OU=ReceiptParser Test Certification Authority,O=ReceiptParser Tests,C=US"))
            #expect(page.contains("valid 2024-01-01T00:00:00Z to 2027-01-01T00:00:00Z"))
            #expect(page.contains("notificationUUID:           &quot;2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e01&quot;"))
            #expect(page.contains("signedDate:                 2025-06-01T12:00:00Z (1748779200000)"))
            #expect(page.contains("price:                    9.99 USD (9990 milliunits)"))
            #expect(!page.contains("File:"))
        }
    }

    @Test func thePageShowsWhyABodyIsRefused() async throws {
        try await buildApplication(try Fixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            let forged = try await Self.page(client, pasting: String(decoding: try Fixtures.file("body-one-bad-transaction.json"), as: UTF8.self))
            #expect(forged.contains("<p id=\"verdict\" class=\"failed\">NOT VERIFIED (signatureInvalid): signedTransactions[1]: the token&#39;s signature does not verify</p>"))
            #expect(forged.contains("Payload (as claimed, not verified):"))
            let duplicate = try await Self.page(client, pasting: String(decoding: try Fixtures.file("body-duplicate-signed-payload.json"), as: UTF8.self))
            #expect(duplicate.contains("class=\"failed\">UNREADABLE (duplicateKey): the JSON body: the key &quot;signedPayload&quot; occurs twice"))
        }
    }

    /// A token's strings reach the page as display text, then HTML-escaped: no terminal escape,
    /// no bidirectional control, no markup.
    @Test func hostileStringsInATokenStayText() async throws {
        try await buildApplication(try Fixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            for name in ["strings-terminal-escapes.jws", "strings-bidi-controls.jws", "strings-newline-tab.jws"] {
                let page = try await Self.page(client, pasting: try Fixtures.token(name))
                #expect(page.contains("class=\"verified\""), "\(name)")
                let tokens = try #require(page.components(separatedBy: "<pre id=\"tokens\">").last?.components(separatedBy: "</pre>").first)
                // Line feeds are the layout's; every other control is escaped.
                #expect(HostileOutputServerTests.rawControl(in: tokens.replacingOccurrences(of: "\n", with: "")) == nil, "\(name)")
            }
            let page = try await Self.page(client, pasting: try Fixtures.token("strings-terminal-escapes.jws"))
            #expect(page.contains("&quot;com.example.receiptparser.sample\\u{1B}[2J\\u{1B}[H\\u{1B}[32mVerdict: VERIFIED"))
        }
    }

    @Test func notificationsAreLoggedWithUUIDTypeAndSubtype() async throws {
        let records = HostileOutputServerTests.Recorder.Records()
        let logger = Logger(label: "notifications") { _ in DisplaySafeLogHandler(wrapping: HostileOutputServerTests.Recorder(records: records)) }
        try await buildApplication(try Fixtures.configuration(), logger: logger).test(.live) { client in
            _ = try await Fixtures.answer(client, "/v2/notifications", ByteBuffer(bytes: try Fixtures.file("body-signed-payload.json")))
            _ = try await Fixtures.answer(client, "/v2/notifications", try Fixtures.body("signedPayload", "nested-bad-signature.jws"))
            _ = try await Fixtures.answer(client, "/v2/notifications", ByteBuffer(string: "not json"))
        }
        let events = records.all.filter { $0.metadata?["route"] == "v2/notifications" }
        #expect(events.map(\.level) == [.info, .notice, .notice])
        #expect(events.map(\.message.description) == ["notification verified", "notification refused", "notification refused"])
        let verified = try #require(events.first?.metadata)
        #expect(verified["notification_uuid"] == "2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e01")
        #expect(verified["notification_type"] == "SUBSCRIBED")
        #expect(verified["subtype"] == "INITIAL_BUY")
        // Refused: what it claims, to find it in Apple's history, and why.
        let refused = try #require(events.dropFirst().first?.metadata)
        #expect(refused["notification_type"] == "SUBSCRIBED")
        #expect(refused["code"] == "signatureInvalid")
        #expect(refused["member"] == "signedPayload")
        #expect(events.last?.metadata?["notification_uuid"] == "-")
    }

    /// No verification slot within the time budget: 503, status 21005, `Retry-After: 1`, as
    /// for receipts; Apple retries a notification answered so.
    @Test func aBusyServerAnswers503() async throws {
        let started = VerificationGateTests.Arrivals()
        let configuration = try Fixtures.configuration(VerificationGateTests.oneSlot(heldFor: 4, timeout: 0.2, recordingIn: started))
        let notification = ByteBuffer(bytes: try Fixtures.file("body-signed-payload.json"))
        try await buildApplication(configuration, logger: ServerTests.logger).test(.live) { client in
            let port = client.port
            async let slow = VerificationGateTests.send(port, "/v1/transactions", body: VerificationGateTests.expensiveBody)
            _ = try await started.wait(for: 1)
            for route in ["/v2/notifications", "/v1/transactions"] {
                let response = try await VerificationGateTests.send(port, route, body: notification)
                #expect(response.head.status == .serviceUnavailable, "\(route)")
                #expect(response.head.headerFields[.retryAfter] == "1")
                let json = try ServerTests().object(try #require(response.body))
                #expect(json["status"] as? Int == 21005)
                #expect(json["verdict"] as? String == "unavailable")
                #expect(Fixtures.error(json)["code"] == "busy")
            }
            #expect(try await slow.head.status == .badRequest)  // the expensive body is no token body
            let (status, _) = try await Fixtures.answer(client, "/v2/notifications", notification)
            #expect(status == 200)
        }
    }
}
