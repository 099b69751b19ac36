import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ReceiptParser
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// The server started on loopback (port 0: a free port) and exercised over HTTP.
struct ServerTests {
    static func testRootConfiguration(_ change: (inout ServerConfiguration) -> Void = { _ in }) throws -> ServerConfiguration {
        var configuration = ServerConfiguration(
            port: 0,
            verifier: ReceiptVerifier(anchor: try .appStore(rootCertificate: Paths.bytes(Paths.fixtures.appendingPathComponent("pki/test-root.der")))))
        change(&configuration)
        return configuration
    }

    static let logger = Logger(label: "receipt-server-tests")

    func object(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
    }

    func requestBody(_ receipt: [UInt8], _ extra: String = "") -> ByteBuffer {
        ByteBuffer(string: "{\"receipt-data\":\"\(Data(receipt).base64EncodedString())\",\"password\":\"secret\"\(extra)}")
    }

    @Test func healthAnswers() async throws {
        try await buildApplication(Self.testRootConfiguration(), logger: Self.logger).test(.live) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "{\"status\":\"ok\"}")
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            }
        }
    }

    /// `/v1/receipts` is written by JSONWriter; its text must be the models' `Codable` JSON
    /// (JSONEncoder.receiptModels), byte for byte, and read back to the same receipt.
    @Test func typedAnswerIsTheModelsCodableJSON() async throws {
        struct Answer: Codable, Equatable {
            let receipt: Receipt
            let verdict: Verdict
            let verification: VerificationReport
        }
        let configuration = try Self.testRootConfiguration()
        for name in ["sample.receipt", "no-in-app.receipt", "sha1.receipt", "signed-attributes.receipt", "subject-key-id.receipt"] {
            let receipt = try Paths.fixture(name)
            let verified = try configuration.verifier.verifyAndDecode(receipt)
            let expected = Answer(receipt: verified.receipt, verdict: .verified, verification: verified.verification)
            let encoded = try JSONEncoder.receiptModels().encode(expected)
            try await buildApplication(configuration, logger: Self.logger).test(.live) { client in
                try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(bytes: receipt)) { response in
                    #expect(response.status == .ok, "\(name)")
                    let body = Data(response.body.readableBytesView)
                    #expect(body == encoded, "\(name)")
                    let decoded = try JSONDecoder.receiptModels().decode(Answer.self, from: body)
                    #expect(decoded == expected, "\(name)")
                }
            }
        }
    }

    @Test func verifyReceiptAnswersLikeApple() async throws {
        let app = buildApplication(try Self.testRootConfiguration(), logger: Self.logger)
        try await app.test(.live) { client in
            try await client.execute(uri: "/verifyReceipt", method: .post, body: requestBody(Paths.fixture("sample.receipt"))) { response in
                #expect(response.status == .ok)
                let json = try object(response.body)
                #expect(json["status"] as? Int == 0)
                #expect(json["environment"] as? String == "Sandbox")
                let receipt = try #require(json["receipt"] as? [String: Any])
                #expect(receipt["bundle_id"] as? String == "com.example.receiptparser.sample")
                #expect((receipt["in_app"] as? [[String: Any]])?.map { $0["product_id"] as? String } == [
                    "com.example.coins.100", "com.example.pro.monthly", "com.example.unlock"])
            }
        }
    }

    @Test func badRequestsGetJSONErrorsNotCrashes() async throws {
        let app = buildApplication(try Self.testRootConfiguration { $0.maximumBodySize = 64 << 10 }, logger: Self.logger)
        try await app.test(.live) { client in
            func status(_ body: String, uri: String = "/verifyReceipt") async throws -> (Int, Int?) {
                try await client.execute(uri: uri, method: .post, body: ByteBuffer(string: body)) { response in
                    (Int(response.status.code), try? object(response.body)["status"] as? Int)
                }
            }
            #expect(try await status("not json") == (200, 21002))
            #expect(try await status("{}") == (200, 21002))
            #expect(try await status("{\"receipt-data\": 5}") == (200, 21002))
            #expect(try await status("{\"receipt-data\": \"%%%\"}") == (200, 21002))
            #expect(try await status("{\"receipt-data\": \"MIIB\"}") == (200, 21002))
            let tampered = Data(try Paths.fixture("tampered-payload.receipt")).base64EncodedString()
            #expect(try await status("{\"receipt-data\": \"\(tampered)\"}") == (200, 21003))
            let legacy = String(decoding: try Paths.fixture("legacy-transaction.b64"), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try await status("{\"receipt-data\": \"\(legacy)\"}") == (200, 21002))
            // Bodies over the limit are refused before they are read whole.
            #expect(try await status(String(repeating: "A", count: 70_000)) == (413, 21002))
            #expect(try await status("x", uri: "/v1/receipts") == (422, 21002))
            // Routing refusals are refusals in the one shape, not verifyReceipt answers.
            try await client.execute(uri: "/no-such-route?x=%3Cscript%3E", method: .post) { response in
                #expect(response.status == .notFound)
                let json = try object(response.body)
                #expect(RefusalShape.error(json, verification: false)["code"] == "notFound")
            }
            try await client.execute(uri: "/verifyReceipt", method: .get) { response in
                #expect(response.status.code == 404 || response.status.code == 405)
                let json = try object(response.body)
                let code = RefusalShape.error(json, verification: false)["code"]
                #expect(code == "notFound" || code == "methodNotAllowed")
            }
            // The server is still up.
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func environmentAndBundleRules() async throws {
        let app = buildApplication(try Self.testRootConfiguration {
            $0.expectedEnvironment = .production
            $0.acceptedBundleIDs = ["com.example.receiptparser.sample"]
        }, logger: Self.logger)
        try await app.test(.live) { client in
            try await client.execute(uri: "/verifyReceipt", method: .post, body: requestBody(Paths.fixture("sample.receipt"))) { response in
                #expect(String(buffer: response.body) == "{\"status\":21007}")
            }
        }
        let other = buildApplication(try Self.testRootConfiguration { $0.acceptedBundleIDs = ["com.example.other"] }, logger: Self.logger)
        try await other.test(.live) { client in
            try await client.execute(uri: "/verifyReceipt", method: .post, body: requestBody(Paths.fixture("sample.receipt"))) { response in
                #expect(String(buffer: response.body) == "{\"status\":21003}")
            }
            try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(bytes: Paths.fixture("sample.receipt"))) { response in
                #expect(response.status == .unprocessableContent)
                let error = try object(response.body)["error"] as? [String: String]
                #expect(error?["code"] == "appIdentityMismatch")
                #expect(error?["reason"] == "bundle-id: expected com.example.other, the data has \"com.example.receiptparser.sample\"")
            }
        }
    }

    /// Receipts and tokens are held to one value, the library's (which compares bytes: its tests).
    @Test func receiptsAndTokensAreHeldToOneAcceptance() throws {
        let precomposed = "com.example.caf\u{E9}", decomposed = "com.example.cafe\u{301}"
        let configuration = try Self.testRootConfiguration {
            $0.acceptedBundleIDs = [ExactIdentifier(precomposed)]
            $0.expectedEnvironment = .sandbox
            $0.appAppleID = 7
        }
        #expect(configuration.acceptance == AcceptanceExpectations(bundleIDs: [ExactIdentifier(precomposed)], environment: .sandbox, appAppleID: 7))
        #expect(configuration.acceptance != AcceptanceExpectations(bundleIDs: [ExactIdentifier(decomposed)], environment: .sandbox, appAppleID: 7))
        #expect(configuration.signedDataVerifier.expectations == configuration.acceptance)
    }

    @Test func environmentFieldAndStatusFromOneRule() async throws {
        // The StoreKit Testing fixture (receipt type Xcode): a test environment.
        func answer(expecting expected: ReceiptParser.Environment?) async throws -> String {
            let configuration = ServerConfiguration(
                port: 0, verifier: ReceiptVerifier(anchor: try .storeKitTesting(certificate: Paths.bytes(Paths.fixtures.appendingPathComponent("pki/storekit-test.der")))),
                expectedEnvironment: expected)
            return try await buildApplication(configuration, logger: Self.logger).test(.live) { client in
                try await client.execute(uri: "/verifyReceipt", method: .post, body: requestBody(Paths.fixture("storekit.receipt"))) { response in
                    let json = try object(response.body)
                    return "\(json["status"] as? Int ?? -1) \(json["environment"] as? String ?? "-")"
                }
            }
        }
        #expect(try await answer(expecting: .sandbox) == "0 Xcode")
        #expect(try await answer(expecting: nil) == "0 Xcode")
        #expect(try await answer(expecting: .production) == "21007 -")
    }

    @Test func typedJSONForRawAndBase64Bodies() async throws {
        let app = buildApplication(try Self.testRootConfiguration(), logger: Self.logger)
        try await app.test(.live) { client in
            for body in [try Paths.fixture("sample.receipt"), try Paths.fixture("sample.b64"), try Paths.fixture("sample-request.json")] {
                try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(bytes: body)) { response in
                    #expect(response.status == .ok)
                    let json = try object(response.body)
                    #expect(json["verdict"] as? String == "verified")
                    let receipt = try #require(json["receipt"] as? [String: Any])
                    #expect(receipt["creationDate"] as? String == "2025-06-01T12:00:00Z")
                    #expect((receipt["inAppPurchases"] as? [Any])?.count == 3)
                    #expect(((json["verification"] as? [String: Any])?["chain"] as? [Any])?.count == 3)
                }
            }
            try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(bytes: Paths.fixture("wrong-root.receipt"))) { response in
                #expect(response.status == .unprocessableContent)
                let json = try object(response.body)
                #expect(json["status"] as? Int == 21003)
                #expect((json["error"] as? [String: String])?["code"] == "untrustedChain")
            }
        }
    }

    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
    func realReceiptsAndExcludeOldTransactions() async throws {
        let app = buildApplication(ServerConfiguration(port: 0), logger: Self.logger)
        let receipt = try Paths.realReceipt("sandbox-20200722T1739-com.revenuecat.sampleapp")
        try await app.test(.live) { client in
            try await client.execute(uri: "/verifyReceipt", method: .post, body: requestBody(receipt)) { response in
                let json = try object(response.body)
                #expect(json["status"] as? Int == 0)
                #expect(((json["receipt"] as? [String: Any])?["in_app"] as? [Any])?.count == 9)
            }
            try await client.execute(uri: "/verifyReceipt", method: .post,
                                     body: requestBody(receipt, ",\"exclude-old-transactions\":true")) { response in
                let inApp = try #require((try object(response.body)["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]])
                #expect(inApp.map { $0["transaction_id"] as? String } == ["1000000696553650"])
            }
            // An Xcode receipt is not an App Store receipt.
            let xcode = try Paths.realReceipt("xcode-20200722T1833-net.zachariadis.cyclemaps")
            try await client.execute(uri: "/verifyReceipt", method: .post, body: requestBody(xcode)) { response in
                #expect(String(buffer: response.body) == "{\"status\":21003}")
            }
        }
    }

    @Test func manyConcurrentRequests() async throws {
        let app = buildApplication(try Self.testRootConfiguration(), logger: Self.logger)
        let good = requestBody(try Paths.fixture("sample.receipt"))
        let bad = requestBody(try Paths.fixture("tampered-signature.receipt"))
        try await app.test(.live) { client in
            let statuses = try await withThrowingTaskGroup(of: Int?.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        try await client.execute(uri: "/verifyReceipt", method: .post, body: index % 2 == 0 ? good : bad) { response in
                            try? object(response.body)["status"] as? Int
                        }
                    }
                }
                return try await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 0 }.count == 32)
            #expect(statuses.filter { $0 == 21003 }.count == 32)
        }
    }

    @Test func supportPageShowsTheReceipt() async throws {
        let app = buildApplication(try Self.testRootConfiguration(), logger: Self.logger)
        try await app.test(.live) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("<form method=\"post\" action=\"/\">"))
                #expect(!page.contains("<script") && !page.contains("http://") && !page.contains("https://"))
            }
            let base64 = Data(try Paths.fixture("sample.receipt")).base64EncodedString()
            let form = "receipt=" + (base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            try await client.execute(uri: "/", method: .post,
                                     headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: form)) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<p id=\"verdict\" class=\"verified\">VERIFIED (appStore, SHA-256"))
                #expect(page.contains("<tr><th>Bundle ID</th><td>com.example.receiptparser.sample</td></tr>"))
                #expect(page.contains("<td>2025-05-20T09:30:00.250Z</td><td>com.example.pro.monthly</td><td>2000000000000002</td>"))
                #expect(page.contains("<td>REFUNDED</td>"))
            }
            try await client.execute(uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "receipt=%3Cscript%3E")) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("class=\"failed\">UNREADABLE (notBase64)"))
                #expect(page.contains("&lt;script&gt;"))
                #expect(!page.contains("<script>"))
            }
        }
    }
}
