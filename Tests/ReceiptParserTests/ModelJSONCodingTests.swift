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
}
