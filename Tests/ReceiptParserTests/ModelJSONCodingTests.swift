import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The models' JSON as the tools write it reads back into the same models.
struct ModelJSONCodingTests {
    @Test func aVerifiedReceiptRoundTrips() throws {
        let verified = try testRootVerifier().verifyAndDecode(fixture("sample.receipt"))
        let json = try JSONEncoder.receiptModels(prettyPrinted: true).encode(verified)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"validationTime\" : \"2025-06-01T12:00:00Z\""))
        #expect(try JSONDecoder.receiptModels().decode(VerifiedReceipt.self, from: json) == verified)
    }

    @Test func aDateThatIsNotRFC3339IsRefused() {
        let json = Data(#"{"subject":"s","issuer":"i","serialNumber":"01","notBefore":"yesterday","notAfter":"2030-01-01T00:00:00Z","sha256":"00"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder.receiptModels().decode(CertificateSummary.self, from: json) }
    }

    /// A receipt reads back through what was signed: its named fields are decoded again from
    /// its raw attributes (a named field edited in the JSON does not change them), and its
    /// purchases are the ones written, so a list narrowed by a filter stays narrowed.
    @Test func aReceiptReadsBackThroughItsSignedAttributes() throws {
        let receipt = try testRootVerifier().verifyAndDecode(fixture("sample.receipt")).receipt
        #expect(receipt.inAppPurchases.count > 1)
        var narrowed = receipt
        narrowed.inAppPurchases = [receipt.inAppPurchases[1]]
        let json = try JSONEncoder().encode(narrowed)
        #expect(try JSONDecoder().decode(Receipt.self, from: json) == narrowed)

        let edited = String(decoding: json, as: UTF8.self)
            .replacingOccurrences(of: "\"bundleID\":\"\(receipt.bundleID!)\"", with: "\"bundleID\":\"com.example.other\"")
        #expect(edited != String(decoding: json, as: UTF8.self))
        #expect(try JSONDecoder().decode(Receipt.self, from: Data(edited.utf8)).bundleID == receipt.bundleID)
    }

    /// Attributes that are not a receipt's payload are refused as corrupt data.
    @Test func attributesThatDoNotDecodeAreRefused() {
        // Two bundle identifiers: the payload decoder refuses the second.
        let json = Data(#"{"attributes":[{"type":2,"value":"0c0161","version":1},{"type":2,"value":"0c0162","version":1}],"inAppPurchases":[]}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Receipt.self, from: json) }
    }
}
