import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptParser
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// `POST /v2/notifications`: 200 only when the notification and every nested token verify and
/// pass the server's rules; 400 with the JSON error otherwise, so Apple sends it again.
struct NotificationRouteTests {
    typealias Fixtures = SignedDataFixtures

    /// A refused body: what it is, and the error the route must answer it with.
    struct Refusal: CustomTestStringConvertible, Sendable {
        let label: String
        let body: @Sendable () throws -> ByteBuffer
        let code: String
        let member: String?
        let verdict: String
        var testDescription: String { label }
    }

    static let refusals: [Refusal] = [
        Refusal(label: "forged signature of a nested token", body: { try Fixtures.body("signedPayload", "nested-bad-signature.jws") },
                code: "signatureInvalid", member: "signedPayload", verdict: "not verified"),
        Refusal(label: "forged leaf certificate", body: { try Fixtures.body("signedPayload", "forged-leaf.jws") },
                code: "untrustedChain", member: "signedPayload", verdict: "not verified"),
        Refusal(label: "a transaction in signedPayload", body: { ByteBuffer(bytes: try Fixtures.file("body-transaction-in-signed-payload.json")) },
                code: "wrongKind", member: "signedPayload", verdict: "not verified"),
        Refusal(label: "renewal info in signedTransactionInfo", body: { try Fixtures.body("signedPayload", "nested-renewal-as-transaction.jws") },
                code: "wrongKind", member: "signedPayload", verdict: "not verified"),
        Refusal(label: "nested token of another bundle id", body: { try Fixtures.body("signedPayload", "nested-bundle-id-mismatch.jws") },
                code: "appIdentityMismatch", member: "signedPayload", verdict: "not verified"),
        Refusal(label: "nested token of another environment", body: { try Fixtures.body("signedPayload", "nested-environment-mismatch.jws") },
                code: "environmentMismatch", member: "signedPayload", verdict: "not verified"),
        Refusal(label: "nested app transaction of another App Apple ID", body: { try Fixtures.body("signedPayload", "nested-app-apple-id-mismatch.jws") },
                code: "appIdentityMismatch", member: "signedPayload", verdict: "not verified"),
        Refusal(label: "nested token unreadable", body: { try Fixtures.body("signedPayload", "nested-malformed.jws") },
                code: "malformedToken", member: "signedPayload", verdict: "unreadable"),
        Refusal(label: "no signed date", body: { try Fixtures.body("signedPayload", "notification-no-signed-date.jws") },
                code: "missingSignedDate", member: "signedPayload", verdict: "not verified"),
        Refusal(label: "duplicate signedPayload", body: { ByteBuffer(bytes: try Fixtures.file("body-duplicate-signed-payload.json")) },
                code: "duplicateKey", member: nil, verdict: "unreadable"),
        Refusal(label: "duplicate key in a token header", body: { try Fixtures.body("signedPayload", "duplicate-header-alg.jws") },
                code: "duplicateKey", member: "signedPayload", verdict: "unreadable"),
        Refusal(label: "duplicate key in another member", body: {
                    ByteBuffer(string: "{\"signedPayload\":\"\(try Fixtures.token("notification-subscribed.jws"))\",\"extra\":{\"a\":1,\"a\":2}}") },
                code: "duplicateKey", member: nil, verdict: "unreadable"),
        Refusal(label: "padding in the token", body: { try Fixtures.body("signedPayload", "padding.jws") },
                code: "malformedToken", member: "signedPayload", verdict: "unreadable"),
        Refusal(label: "not three parts", body: { ByteBuffer(string: #"{"signedPayload":"abc.def"}"#) },
                code: "malformedToken", member: "signedPayload", verdict: "unreadable"),
        Refusal(label: "signedPayload not a string", body: { ByteBuffer(string: #"{"signedPayload":5}"#) },
                code: "wrongValueType", member: "signedPayload", verdict: "unreadable"),
        Refusal(label: "nested deeper than 64", body: { ByteBuffer(bytes: try Fixtures.file("body-depth-65.json")) },
                code: "invalidJSON", member: nil, verdict: "unreadable"),
        Refusal(label: "not JSON", body: { ByteBuffer(string: "{signedPayload}") },
                code: "invalidJSON", member: nil, verdict: "unreadable"),
        Refusal(label: "a bare token, not Apple's body", body: { ByteBuffer(bytes: try Fixtures.file("notification-subscribed.jws")) },
                code: "invalidJSON", member: nil, verdict: "unreadable"),
        Refusal(label: "no signedPayload", body: { try Fixtures.body("signedTransactionInfo", "transaction.jws") },
                code: "wrongKind", member: nil, verdict: "not verified"),
        Refusal(label: "no token at all", body: { ByteBuffer(string: #"{"notificationType":"TEST"}"#) },
                code: "malformedToken", member: nil, verdict: "unreadable"),
    ]

    @Test func aGenuineNotificationIsAnswered200WithItsIdentity() async throws {
        let app = buildApplication(try Fixtures.configuration {
            $0.acceptedBundleIDs = ["com.example.receiptparser.sample"]
            $0.expectedEnvironment = .sandbox
            $0.appAppleID = 1_234_567_890
        }, logger: ServerTests.logger)
        try await app.test(.live) { client in
            try await client.execute(uri: "/v2/notifications", method: .post,
                                     body: ByteBuffer(bytes: try Fixtures.file("body-signed-payload.json"))) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                #expect(String(buffer: response.body) == #"{"notificationType":"SUBSCRIBED","notificationUUID":"2f6a0f5e-5d1c-4c0e-9e0a-6f1b2c3d4e01","subtype":"INITIAL_BUY","verdict":"verified"}"#)
            }
            // No subtype: none written.
            let consumption = try await Fixtures.answer(client, "/v2/notifications", Fixtures.body("signedPayload", "notification-test.jws"))
            #expect(consumption.status == 200)
            #expect(consumption.json["notificationType"] as? String == "TEST")
            #expect(consumption.json["subtype"] == nil)
        }
    }

    @Test(arguments: refusals)
    func refusedWith400(_ refusal: Refusal) async throws {
        try await buildApplication(try Fixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            let (status, json) = try await Fixtures.answer(client, "/v2/notifications", try refusal.body())
            #expect(status == 400)
            let error = Fixtures.error(json)
            #expect(error["code"] == refusal.code)
            #expect(error["member"] == refusal.member)
            #expect(error["reason"]?.isEmpty == false)
            #expect(json["verdict"] as? String == refusal.verdict)
            #expect(json["status"] as? Int == (refusal.verdict == "unreadable" ? 21002 : 21003))
        }
    }

    /// The server's bundle ids, environment and App Apple ID apply to the notification; a
    /// genuine notification for another app or environment is not accepted.
    @Test func theServersRulesApply() async throws {
        let cases: [(String, (inout ServerConfiguration) -> Void, String?)] = [
            ("sandbox server", { $0.expectedEnvironment = .sandbox }, nil),
            ("production server", { $0.expectedEnvironment = .production }, "environmentMismatch"),
            ("its App Apple ID", { $0.appAppleID = 1_234_567_890 }, nil),
            ("another App Apple ID", { $0.appAppleID = 1_234_567_891 }, "appIdentityMismatch"),
            ("another app", { $0.acceptedBundleIDs = ["com.example.other"] }, "appIdentityMismatch"),
            ("two other apps", { $0.acceptedBundleIDs = ["com.example.other", "com.example.third"] }, "appIdentityMismatch"),
            ("its app among two", { $0.acceptedBundleIDs = ["com.example.other", "com.example.receiptparser.sample"] }, nil),
        ]
        for (label, change, code) in cases {
            try await buildApplication(try Fixtures.configuration(change), logger: ServerTests.logger).test(.live) { client in
                let (status, json) = try await Fixtures.answer(client, "/v2/notifications", ByteBuffer(bytes: try Fixtures.file("body-signed-payload.json")))
                #expect(status == (code == nil ? 200 : 400), "\(label)")
                #expect(Fixtures.error(json)["code"] == code, "\(label)")
                #expect(json["verdict"] as? String == (code == nil ? "verified" : "not accepted"), "\(label)")
            }
        }
    }

    /// Every real notification of the corpus is answered 200 at its signed date when the ground
    /// truth says it and its nested tokens verify; the one without a date is refused.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func realNotificationsAreAccepted() async throws {
        let tokens = Fixtures.corpus.appendingPathComponent("tokens")
        let names = try FileManager.default.contentsOfDirectory(atPath: tokens.path).filter { $0.contains("-notification-") }.sorted()
        #expect(names.count == 17)
        let accepted = try await buildApplication(ServerConfiguration(port: 0), logger: ServerTests.logger).test(.live) { client in
            var accepted = 0
            for name in names {
                let token = String(decoding: try Paths.bytes(tokens.appendingPathComponent(name)), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                let expected = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Fixtures.corpus
                    .appendingPathComponent("expected/\(name.dropLast(4)).json"))) as? [String: Any])
                let payload = try #require(expected["payload"] as? [String: Any])
                let dated = (expected["validation_time"] as? [String: Any])?["present"] as? Bool == true
                let verified = (expected["verification"] as? [String: Any])?["verdict_at_validation_time"] as? Bool == true
                    && expected["all_nested_verify"] as? Bool != false
                let (status, json) = try await Fixtures.answer(client, "/v2/notifications", ByteBuffer(string: "{\"signedPayload\":\"\(token)\"}"))
                if dated && verified {
                    accepted += 1
                    #expect(status == 200, "\(name): \(json)")
                    #expect(json["notificationUUID"] as? String == payload["notificationUUID"] as? String, "\(name)")
                    #expect(json["notificationType"] as? String == payload["notificationType"] as? String, "\(name)")
                    #expect(json["subtype"] as? String == payload["subtype"] as? String, "\(name)")
                } else {
                    #expect(status == 400, "\(name)")
                    #expect(Fixtures.error(json)["code"] == (dated ? "signatureInvalid" : "missingSignedDate"), "\(name)")
                }
            }
            return accepted
        }
        #expect(accepted == 16)
    }
}
