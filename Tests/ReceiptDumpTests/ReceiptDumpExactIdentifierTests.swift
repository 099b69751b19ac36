import Foundation
import Testing
import ReceiptParser
import ReceiptTestSupport

/// receipt-dump's checks, filters and reconciliation match identifiers byte for byte, as the
/// library's queries do (ReceiptParserTests' ExactIdentifierTests): each pair below is equal as
/// Swift `String`s.
struct ReceiptDumpExactIdentifierTests {
    static let (precomposed, decomposed) = (TestReceipt.LookAlike.precomposed, TestReceipt.LookAlike.decomposed)
    static let (kelvin, letterK) = (TestReceipt.LookAlike.kelvin, TestReceipt.LookAlike.letterK)

    let tool = ReceiptDumpTests()

    /// receipt-dump `--no-verify` on the look-alike receipt (unsigned), with `arguments`.
    func dump(_ arguments: [String]) throws -> ReceiptDumpTests.Run {
        let payload = TestReceipt.payload(bundleID: Self.decomposed, applicationVersion: "1.\u{212A}", purchases: [
            .init(productID: Self.decomposed, transactionID: Self.kelvin),
            .init(productID: Self.precomposed, transactionID: Self.letterK),
        ])
        let file = try TestReceipt.temporaryFile(TestReceipt.unsigned(payload))
        defer { try? FileManager.default.removeItem(at: file) }
        return try tool.run(["--no-verify"] + arguments + [file.path])
    }

    func purchases(_ result: ReceiptDumpTests.Run) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        return try #require((object["receipt"] as? [String: Any])?["inAppPurchases"] as? [[String: Any]])
    }

    @Test func receiptDumpChecksCompareBytes() throws {
        let lookAlike = try dump(["--bundle-id", Self.precomposed])
        #expect(lookAlike.status == 1)
        #expect(lookAlike.output.contains("FAIL: expected \(Self.precomposed), the data has \"\(Self.decomposed)\" (same text, other bytes: expected UTF-8 636f6d2e6578616d706c652e636166c3a9, the data has 636f6d2e6578616d706c652e63616665cc81)"))
        #expect(try dump(["--bundle-id", Self.decomposed]).status == 0)
        #expect(try dump(["--app-version", "1.K"]).status == 1)
        #expect(try dump(["--app-version", "1.\u{212A}"]).status == 0)
    }

    @Test func receiptDumpFiltersCompareBytes() throws {
        let product = try purchases(dump(["--format", "json", "--product", Self.precomposed]))
        #expect(product.map { $0["transactionID"] as? String }.map { $0.map(ExactIdentifier.init) } == [ExactIdentifier(Self.letterK)])
        let transaction = try purchases(dump(["--format", "json", "--transaction", Self.kelvin]))
        #expect(transaction.map { ($0["productID"] as? String).map(ExactIdentifier.init) } == [ExactIdentifier(Self.decomposed)])
    }

    @Test func receiptDumpReconcilesExactTransactionIDs() throws {
        let credited = try TestReceipt.temporaryFile(Array("\(Self.letterK)\n".utf8))
        defer { try? FileManager.default.removeItem(at: credited) }
        let result = try dump(["--format", "json", "--credited", credited.path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let reconciliation = try #require(object["reconciliation"] as? [String: [String]])
        #expect(reconciliation["notCredited"]?.map(ExactIdentifier.init) == [ExactIdentifier(Self.kelvin)])
        #expect(reconciliation["notInReceipt"] == [])
    }

    @Test func aSignedDecomposedBundleIDFailsThePrecomposedCheck() throws {
        // The generated fixture (TestReceipts/hostile), genuinely signed by the test PKI.
        let tool = ReceiptDumpTests()
        let lookAlike = try tool.run("--root", "pki/test-root.der", "--bundle-id", Self.precomposed, "hostile/decomposed-bundle-id.receipt")
        #expect(lookAlike.status == 1)
        // Genuine but for another app: not accepted, as receipt-server answers it.
        #expect(lookAlike.output.contains("Verdict:                      NOT ACCEPTED (appIdentityMismatch)"))
        #expect(lookAlike.output.contains("Check bundle-id:              FAIL"))
        #expect(try tool.run("--root", "pki/test-root.der", "--bundle-id", Self.decomposed, "hostile/decomposed-bundle-id.receipt").status == 0)
    }
}
