import Foundation
import Testing
import ReceiptParser
import ReceiptTestSupport

/// Request bodies, `{"receipt-data": ...}`, read once and the same way by every entry point.
struct VerifyReceiptRequestTests {
    /// The sample receipt's base64, on one line.
    func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func readsAppleRequestBodies() throws {
        let base64 = try sampleBase64()
        let request = try VerifyReceiptRequest.parse(body(#"{"receipt-data": "\#(base64)", "password": "secret", "exclude-old-transactions": true, "unknown": [1]}"#))
        #expect(request.receiptData == (try fixture("sample.receipt")))
        #expect(request.password == "secret")
        #expect(request.excludeOldTransactions)
        let minimal = try VerifyReceiptRequest.parse(body(#"{"receipt-data": "\#(base64)"}"#))
        #expect(minimal == VerifyReceiptRequest(receiptData: try fixture("sample.receipt")))
        let nulls = try VerifyReceiptRequest.parse(body(#"{"receipt-data": "\#(base64)", "password": null, "exclude-old-transactions": null}"#))
        #expect(nulls.password == nil && !nulls.excludeOldTransactions)
        #expect(try VerifyReceiptRequest.parse(fixture("sample-request.json")).receiptData == fixture("sample.receipt"))
    }

    @Test func twoReceiptDataMembersAreRefused() throws {
        let base64 = try sampleBase64()
        let other = Data(try fixture("wrong-root.receipt")).base64EncodedString()
        for text in [#"{"receipt-data": "\#(base64)", "receipt-data": "\#(other)"}"#,
                     #"{"receipt-data": "\#(base64)", "receipt\u002ddata": "\#(other)"}"#,
                     #"{"receipt-data": "\#(base64)", "password": "x", "receipt-data": "\#(base64)"}"#] {
            #expect(errorCode { try VerifyReceiptRequest.parse(body(text)) } == .duplicateKey)
            #expect(errorCode { try ReceiptInput.receiptBytes(from: body(text)) } == .duplicateKey)
        }
        // Nested duplicates make the body ambiguous too.
        let nested = #"{"receipt-data": "\#(base64)", "extra": {"a": 1, "a": 2}}"#
        #expect(errorCode { try ReceiptInput.receiptBytes(from: body(nested)) } == .duplicateKey)
    }

    @Test func membersOfTheWrongTypeAreRefused() throws {
        let base64 = try sampleBase64()
        for text in [#"{"receipt-data": 12}"#, #"{"receipt-data": null}"#, #"{"receipt-data": ["\#(base64)"]}"#,
                     #"{"receipt-data": "\#(base64)", "exclude-old-transactions": "true"}"#,
                     #"{"receipt-data": "\#(base64)", "exclude-old-transactions": 1}"#,
                     #"{"receipt-data": "\#(base64)", "password": 5}"#,
                     #"{"password": "x"}"#, "{}", #"["\#(base64)"]"#, "\"\(base64)\"", "{\"receipt-data\": \"\(base64)\"} x"] {
            #expect(errorCode { try VerifyReceiptRequest.parse(body(text)) } == .invalidJSON, "\(text.prefix(60))")
        }
        #expect(errorCode { try VerifyReceiptRequest.parse(body(#"{"receipt-data": "%%%"}"#)) } == .notBase64)
        #expect(errorCode { try VerifyReceiptRequest.parse(body(#"{"receipt-data": "QUJD"}"#)) } == .notPKCS7)
        let legacy = String(decoding: try fixture("legacy-transaction.b64"), as: UTF8.self).filter { !$0.isWhitespace }
        #expect(errorCode { try VerifyReceiptRequest.parse(body(#"{"receipt-data": "\#(legacy)"}"#)) } == .legacyTransactionReceipt)
    }

    @Test func receiptInputReadsBodiesStrictly() throws {
        let base64 = try sampleBase64()
        let sample = try fixture("sample.receipt")
        #expect(try ReceiptInput.receiptBytes(from: fixture("sample-request.json")) == sample)
        // JSON writers escape "/" as "\/" (the fuzz regression sample-request-escaped-slashes).
        let escaped = base64.replacingOccurrences(of: "/", with: "\\/")
        #expect(escaped != base64)
        #expect(try ReceiptInput.receiptBytes(from: body(#"{"receipt-data":"\#(escaped)"}"#)) == sample)
        // Non-ASCII elsewhere in the body is fine; invalid UTF-8 is not.
        #expect(try ReceiptInput.receiptBytes(from: body(#"{"password": "mot de passe é", "receipt-data":"\#(base64)"}"#)) == sample)
        var invalid = body(#"{"password": "x", "receipt-data":"\#(base64)"}"#)
        invalid[14] = 0xFF
        #expect(errorCode { try ReceiptInput.receiptBytes(from: invalid) } == .invalidJSON)
        let deep = "{\"receipt-data\": \"\(base64)\", \"x\": " + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}"
        #expect(errorCode { try ReceiptInput.receiptBytes(from: body(deep)) } == .invalidJSON)
        #expect(errorCode { try ReceiptInput.receiptBytes(from: body("{\"receipt-data\": \"\(base64)\"")) } == .invalidJSON)
        // The legacy text dictionary starts with "{" too: not JSON, it is recognised once the
        // JSON reader refuses it. A JSON request that merely holds its key names is a request.
        let legacyText = body("{\n\t\"signature\" = \"AA==\";\n\t\"purchase-info\" = \"AA==\";\n}")
        #expect(errorCode { try ReceiptInput.receiptBytes(from: legacyText) } == .legacyTransactionReceipt)
        let namesOnly = body(#"{"receipt-data":"\#(base64)","signature":"x","purchase-info":"y"}"#)
        #expect(try ReceiptInput.receiptBytes(from: namesOnly) == sample)
    }

    @Test func aLargeBodyParsesInMilliseconds() throws {
        // 4 MiB of base64 (the server's default body limit): no Foundation on the way.
        let receipt = try fixture("sample.receipt")
        let base64 = Data(receipt + [UInt8](repeating: 0, count: 3 << 20)).base64EncodedString()
        let text = body(#"{"receipt-data": "\#(base64)", "password": "secret"}"#)
        #expect(text.count > 4_000_000)
        let clock = ContinuousClock()
        var best = Duration.seconds(60)
        for _ in 0..<3 {
            let elapsed = try clock.measure { _ = try VerifyReceiptRequest.parse(text) }
            best = min(best, elapsed)
        }
        // Unoptimised code is about a hundred times slower.
        #if DEBUG
        let limit = Duration.seconds(10)
        #else
        let limit = Duration.milliseconds(50)
        #endif
        #expect(best < limit, "a 4 MiB body took \(best)")
        print("VerifyReceiptRequest.parse of \(text.count) bytes: \(best)")
    }
}
