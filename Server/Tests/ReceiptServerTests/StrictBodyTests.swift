import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// Both routes that take request bodies read them with the library's strict reader, so they
/// cannot disagree about which receipt a body holds: an ambiguous body is refused by both.
struct StrictBodyTests {
    static func sampleBase64() throws -> String { Data(try Paths.fixture("sample.receipt")).base64EncodedString() }

    /// The sample first and another receipt second: JSONSerialization and JSONDecoder each
    /// picked one of the two.
    static func twoReceipts() throws -> String {
        let other = Data(try Paths.fixture("wrong-root.receipt")).base64EncodedString()
        return #"{"receipt-data":"\#(try sampleBase64())","password":"secret","receipt-data":"\#(other)"}"#
    }

    func object(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
    }

    @Test func duplicateKeysAreRefusedByBothRoutes() async throws {
        let base64 = try Self.sampleBase64()
        let bodies = [try Self.twoReceipts(),
                      #"{"receipt-data":"\#(base64)","receipt\u002Ddata":"\#(base64)"}"#,
                      #"{"receipt-data":"\#(base64)","extra":{"a":1,"a":2}}"#]
        try await buildApplication(ServerTests.testRootConfiguration(), logger: ServerTests.logger).test(.live) { client in
            for body in bodies {
                try await client.execute(uri: "/verifyReceipt", method: .post, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "{\"status\":21002}")
                }
                try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .badRequest)
                    let json = try object(response.body)
                    #expect(json["status"] as? Int == 21002)
                    #expect(json["verdict"] as? String == "unreadable")
                    let error = try #require(json["error"] as? [String: String])
                    #expect(error["code"] == "duplicateKey")
                    #expect(error["reason"]?.contains("\"") == true)
                }
            }
        }
    }

    @Test func malformedAndTooDeepBodiesAreBadRequests() async throws {
        let base64 = try Self.sampleBase64()
        let deep = #"{"receipt-data":"\#(base64)","x":"# + String(repeating: "[", count: 33) + String(repeating: "]", count: 33) + "}"
        let cases: [(body: String, code: String)] = [
            (#"{"receipt-data":"\#(base64)""#, "invalidJSON"),
            (#"{"receipt-data":"\#(base64)",}"#, "invalidJSON"),
            (deep, "invalidJSON"),
            (#"{"receipt-data":"\#(base64)","exclude-old-transactions":"true"}"#, "invalidJSON"),
            (#"{"password":"secret"}"#, "invalidJSON"),
        ]
        try await buildApplication(ServerTests.testRootConfiguration(), logger: ServerTests.logger).test(.live) { client in
            for item in cases {
                try await client.execute(uri: "/verifyReceipt", method: .post, body: ByteBuffer(string: item.body)) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "{\"status\":21002}")
                }
                try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(string: item.body)) { response in
                    #expect(response.status == .badRequest, "\(item.body.suffix(40))")
                    let json = try object(response.body)
                    #expect(json["status"] as? Int == 21002)
                    #expect((json["error"] as? [String: String])?["code"] == item.code)
                }
            }
            // Unreadable receipts in well-formed bodies stay 422.
            try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(string: #"{"receipt-data":"%%%"}"#)) { response in
                #expect(response.status == .unprocessableContent)
                let json = try object(response.body)
                #expect((json["error"] as? [String: String])?["code"] == "notBase64")
            }
            // Escaped slashes and a strict boolean: still Apple's body.
            let escaped = base64.replacingOccurrences(of: "/", with: "\\/")
            try await client.execute(uri: "/verifyReceipt", method: .post,
                                     body: ByteBuffer(string: #"{"receipt-data":"\#(escaped)","exclude-old-transactions":false}"#)) { response in
                let json = try object(response.body)
                #expect(json["status"] as? Int == 0)
            }
        }
    }
}
