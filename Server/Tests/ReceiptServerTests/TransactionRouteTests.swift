import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptParser
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// `POST /v1/transactions`: a transaction token or an App Store Server API answer → every
/// token's inspection with its typed payload; 400 for input that cannot be read, 422 for input
/// that is not verified or not accepted, naming the member at fault.
struct TransactionRouteTests {
    typealias Fixtures = SignedDataFixtures

    /// The tokens of a 200 answer.
    static func tokens(_ json: [String: Any]) -> [[String: Any]] { json["tokens"] as? [[String: Any]] ?? [] }

    @Test func aBareTransactionIsAnsweredWithItsTypedPayload() async throws {
        try await buildApplication(try Fixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            let (status, json) = try await Fixtures.answer(client, "/v1/transactions", ByteBuffer(bytes: try Fixtures.file("transaction.jws")))
            #expect(status == 200)
            #expect(json["verdict"] as? String == "verified")
            let token = try #require(Self.tokens(json).first)
            #expect(Self.tokens(json).count == 1)
            #expect(token["member"] == nil)
            #expect(token["kind"] as? String == "transaction")
            #expect(token["verdict"] as? String == "verified")
            let payload = try #require(token["payload"] as? [String: Any])
            #expect(payload["transactionId"] as? String == "2000000000000101")
            #expect(payload["signedDate"] as? String == "2025-06-01T12:00:00.000Z")
            #expect(payload["price"] as? Int == 9990)
            let verification = try #require(token["verification"] as? [String: Any])
            #expect(verification["validationTime"] as? String == "2025-06-01T12:00:00Z")
            #expect((verification["chain"] as? [Any])?.count == 3)
        }
    }

    /// The answer's tokens are the library's inspection JSON, byte for byte: one writer for
    /// receipt-dump and the server.
    @Test func theAnswerIsTheInspectionsJSON() async throws {
        let configuration = try Fixtures.configuration()
        let body = try Fixtures.file("body-subscription-status.json")
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("tokens", configuration.signedDataVerifier.inspectAll(body, expecting: .transaction))
        writer.member("verdict", Verdict.verified)
        writer.endObject()
        let expected = writer.finishString()
        try await buildApplication(configuration, logger: ServerTests.logger).test(.live) { client in
            try await client.execute(uri: "/v1/transactions", method: .post, body: ByteBuffer(bytes: body)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == expected)
            }
        }
    }

    @Test func serverAPIBodies() async throws {
        try await buildApplication(try Fixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            let cases: [(String, [String], [String])] = [
                ("body-transaction-history.json", ["signedTransactions[0]", "signedTransactions[1]"], ["transaction", "transaction"]),
                ("body-transaction-info.json", ["signedTransactionInfo"], ["transaction"]),
                ("body-subscription-status.json", ["signedTransactionInfo", "signedRenewalInfo"], ["transaction", "renewalInfo"]),
            ]
            for (name, members, kinds) in cases {
                let (status, json) = try await Fixtures.answer(client, "/v1/transactions", ByteBuffer(bytes: try Fixtures.file(name)))
                #expect(status == 200, "\(name)")
                #expect(Self.tokens(json).map { $0["member"] as? String } == members, "\(name)")
                #expect(Self.tokens(json).map { $0["kind"] as? String } == kinds, "\(name)")
                #expect(Self.tokens(json).allSatisfy { $0["verdict"] as? String == "verified" && $0["payload"] != nil }, "\(name)")
            }
        }
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        let label: String
        let body: @Sendable () throws -> ByteBuffer
        let status: Int
        let code: String
        let member: String?
        var testDescription: String { label }
    }

    static func file(_ name: String) -> @Sendable () throws -> ByteBuffer { { ByteBuffer(bytes: try Fixtures.file(name)) } }

    static let refusals: [Refusal] = [
        // Not verified: 422.
        Refusal(label: "forged signature", body: file("signature-other-key.jws"), status: 422, code: "signatureInvalid", member: nil),
        Refusal(label: "alg none", body: file("alg-none.jws"), status: 422, code: "unsupportedSignatureAlgorithm", member: nil),
        Refusal(label: "two certificates", body: file("x5c-two.jws"), status: 422, code: "untrustedChain", member: nil),
        Refusal(label: "leaf without the marker", body: file("leaf-no-oid.jws"), status: 422, code: "missingAppleExtension", member: nil),
        Refusal(label: "expired leaf", body: file("expired-leaf.jws"), status: 422, code: "certificateNotValidAtTime", member: nil),
        Refusal(label: "one bad transaction of two", body: file("body-one-bad-transaction.json"), status: 422, code: "signatureInvalid",
                member: "signedTransactions[1]"),
        Refusal(label: "renewal info as the transaction", body: file("body-renewal-in-transaction-info.json"), status: 422, code: "wrongKind",
                member: "signedTransactionInfo"),
        Refusal(label: "a transaction as the renewal info", body: file("body-transaction-in-renewal-info.json"), status: 422, code: "wrongKind",
                member: "signedRenewalInfo"),
        Refusal(label: "bare renewal info", body: file("renewal-info.jws"), status: 422, code: "wrongKind", member: nil),
        Refusal(label: "renewal info alone", body: { try Fixtures.body("signedRenewalInfo", "renewal-info.jws") }, status: 422, code: "wrongKind",
                member: nil),
        Refusal(label: "a notification body", body: file("body-signed-payload.json"), status: 422, code: "wrongKind", member: "signedPayload"),
        Refusal(label: "an app transaction body", body: file("body-app-transaction-info.json"), status: 422, code: "wrongKind",
                member: "signedAppTransactionInfo"),
        Refusal(label: "renewal info of another environment", body: file("body-status-environment-mismatch.json"), status: 422,
                code: "environmentMismatch", member: "signedRenewalInfo"),
        Refusal(label: "renewal info of another transaction", body: {
                    ByteBuffer(string: "{\"signedTransactionInfo\":\"\(try Fixtures.token("transaction-minimal.jws"))\",\"signedRenewalInfo\":\"\(try Fixtures.token("renewal-info.jws"))\"}") },
                status: 422, code: "appIdentityMismatch", member: "signedRenewalInfo"),
        Refusal(label: "transactions of two apps", body: {
                    ByteBuffer(string: "{\"signedTransactions\":[\"\(try Fixtures.token("transaction.jws"))\",\"\(try Fixtures.token("decomposed-bundle-id.jws"))\"]}") },
                status: 422, code: "appIdentityMismatch", member: "signedTransactions[1]"),
        // Unreadable: 400.
        Refusal(label: "two parts", body: file("parts-two.jws"), status: 400, code: "malformedToken", member: nil),
        Refusal(label: "padding", body: file("padding.jws"), status: 400, code: "malformedToken", member: nil),
        Refusal(label: "plus sign", body: file("base64-plus.jws"), status: 400, code: "malformedToken", member: nil),
        Refusal(label: "space inside", body: file("space-inside.jws"), status: 400, code: "malformedToken", member: nil),
        Refusal(label: "payload not UTF-8", body: file("utf8-latin1-payload.jws"), status: 400, code: "malformedToken", member: nil),
        Refusal(label: "payload an array", body: file("json-payload-array.jws"), status: 400, code: "malformedToken", member: nil),
        Refusal(label: "duplicate key in the header", body: file("duplicate-header-alg.jws"), status: 400, code: "duplicateKey", member: nil),
        Refusal(label: "duplicate key in the payload", body: file("duplicate-payload-bundle-id.jws"), status: 400, code: "duplicateKey", member: nil),
        Refusal(label: "duplicate member of the body", body: file("body-duplicate-escaped.json"), status: 400, code: "duplicateKey", member: nil),
        Refusal(label: "duplicate key elsewhere in the body", body: file("body-duplicate-other-member.json"), status: 400, code: "duplicateKey",
                member: nil),
        Refusal(label: "payload deeper than 64", body: file("depth-65.jws"), status: 400, code: "invalidJSON", member: nil),
        Refusal(label: "token over 1 MiB", body: file("size-over-limit.jws"), status: 400, code: "tooLarge", member: nil),
        Refusal(label: "price of another type", body: file("type-price-string.jws"), status: 400, code: "wrongValueType", member: nil),
        Refusal(label: "one unreadable transaction of two", body: file("body-one-malformed-transaction.json"), status: 400,
                code: "malformedToken", member: "signedTransactions[1]"),
    ]

    @Test(arguments: refusals)
    func refused(_ refusal: Refusal) async throws {
        try await buildApplication(try Fixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            let (status, json) = try await Fixtures.answer(client, "/v1/transactions", try refusal.body())
            #expect(status == refusal.status)
            let error = Fixtures.error(json)
            #expect(error["code"] == refusal.code)
            #expect(error["member"] == refusal.member)
            #expect(json["verdict"] as? String == (refusal.status == 400 ? "unreadable" : "not verified"))
            #expect(json["status"] as? Int == (refusal.status == 400 ? 21002 : 21003))
            #expect(json["tokens"] == nil)
        }
    }

    /// The largest token accepted goes through the server too (the body limit is 4 MiB).
    @Test func aTokenAtTheSizeLimitVerifies() async throws {
        try await buildApplication(try Fixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            let (status, _) = try await Fixtures.answer(client, "/v1/transactions", ByteBuffer(bytes: try Fixtures.file("size-at-limit.jws")))
            #expect(status == 200)
        }
    }

    /// Bundle ids, environment and App Apple ID, as for notifications; refusals are not accepted (422).
    @Test func theServersRulesApply() async throws {
        let cases: [(String, String, (inout ServerConfiguration) -> Void, String?)] = [
            ("transaction.jws", "its app", { $0.acceptedBundleIDs = ["com.example.receiptparser.sample"] }, nil),
            ("transaction.jws", "another app", { $0.acceptedBundleIDs = ["com.example.other"] }, "appIdentityMismatch"),
            ("transaction.jws", "two other apps", { $0.acceptedBundleIDs = ["com.example.other", "com.example.third"] }, "appIdentityMismatch"),
            ("transaction.jws", "its app among two", { $0.acceptedBundleIDs = ["com.example.other", "com.example.receiptparser.sample"] }, nil),
            ("decomposed-bundle-id.jws", "a look-alike bundle id", { $0.acceptedBundleIDs = ["com.example.caf\u{E9}", "com.example.other"] },
             "appIdentityMismatch"),
            ("transaction-minimal.jws", "no bundle id, two accepted", { $0.acceptedBundleIDs = ["com.example.a", "com.example.b"] },
             "appIdentityMismatch"),
            ("transaction.jws", "production server", { $0.expectedEnvironment = .production }, "environmentMismatch"),
            ("environment-lowercase.jws", "sandbox spelled sandbox", { $0.expectedEnvironment = .sandbox }, "environmentMismatch"),
            ("transaction.jws", "an App Apple ID (a transaction has none)", { $0.appAppleID = 1 }, nil),
            ("body-transaction-history.json", "a history of another app", { $0.acceptedBundleIDs = ["com.example.other"] }, "appIdentityMismatch"),
        ]
        for (name, label, change, code) in cases {
            try await buildApplication(try Fixtures.configuration(change), logger: ServerTests.logger).test(.live) { client in
                let (status, json) = try await Fixtures.answer(client, "/v1/transactions", ByteBuffer(bytes: try Fixtures.file(name)))
                #expect(status == (code == nil ? 200 : 422), "\(label)")
                #expect(Fixtures.error(json)["code"] == code, "\(label)")
                #expect(json["verdict"] as? String == (code == nil ? "verified" : "not accepted"), "\(label)")
            }
        }
    }

    /// A real production transaction and real sandbox ones, at their signed dates.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func realTransactionsVerify() async throws {
        let tokens = Fixtures.corpus.appendingPathComponent("tokens")
        let names = try FileManager.default.contentsOfDirectory(atPath: tokens.path).filter { $0.contains("-transaction-") }.sorted()
        #expect(names.count == 20)
        try await buildApplication(ServerConfiguration(port: 0), logger: ServerTests.logger).test(.live) { client in
            for name in names {
                let (status, json) = try await Fixtures.answer(client, "/v1/transactions", ByteBuffer(bytes: try Paths.bytes(tokens.appendingPathComponent(name))))
                #expect(status == 200, "\(name): \(Fixtures.error(json))")
                #expect((Self.tokens(json).first?["payload"] as? [String: Any])?["transactionId"] is String, "\(name)")
            }
        }
    }
}
