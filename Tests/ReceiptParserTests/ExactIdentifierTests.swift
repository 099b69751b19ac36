import Foundation
import Testing
@testable import ReceiptParser

/// Identifiers match byte for byte everywhere: in the library's queries and in receipt-dump's
/// checks, filters and reconciliation. Each pair below is equal as Swift `String`s.
struct ExactIdentifierTests {
    static let precomposed = "com.example.caf\u{E9}"
    static let decomposed = "com.example.cafe\u{301}"
    static let kelvin = "tx-\u{212A}"  // KELVIN SIGN, canonically "K"
    static let letterK = "tx-K"

    /// Two subscriptions whose products and original transactions look alike; only the
    /// decomposed product's was a trial.
    static let receipt: Receipt = {
        let payload = TestReceipt.payload(bundleID: decomposed, purchases: [
            .init(productID: decomposed, transactionID: kelvin, originalTransactionID: kelvin,
                  expiresDate: "2025-06-01T00:00:00Z", isTrialPeriod: true),
            .init(productID: precomposed, transactionID: letterK, originalTransactionID: letterK,
                  purchaseDate: "2025-04-01T00:00:00Z", expiresDate: "2025-05-01T00:00:00Z"),
        ])
        return try! ReceiptPayloadDecoder.decode(payload)
    }()

    @Test func stringsThatAreEqualAsTextAreNotTheSameIdentifier() {
        #expect(Self.precomposed == Self.decomposed && Self.kelvin == Self.letterK)  // the hazard
        #expect(ExactIdentifier(Self.precomposed) != ExactIdentifier(Self.decomposed))
        #expect(ExactIdentifier(Self.kelvin) != ExactIdentifier(Self.letterK))
        #expect(ExactIdentifier(Self.decomposed) == ExactIdentifier("com.example.cafe\u{301}"))
        #expect(Set([Self.precomposed, Self.decomposed].map(ExactIdentifier.init)).count == 2)
        #expect(Set([Self.precomposed, Self.decomposed]).count == 1)
        // Byte order: "e" (0x65) before "é" (0xC3 0xA9); "K" (0x4B) before the Kelvin sign (0xE2...).
        #expect([Self.precomposed, Self.decomposed, Self.kelvin, Self.letterK].map(ExactIdentifier.init).sorted().map(\.text)
                == [Self.decomposed, Self.precomposed, Self.letterK, Self.kelvin])
        let literal: ExactIdentifier = "caf\u{E9}"
        #expect(literal.text.utf8.count == 5 && literal.description == "caf\u{E9}")
    }

    @Test func queriesMatchIdentifiersByteForByte() {
        let receipt = Self.receipt
        #expect(receipt.purchases(ofProduct: Self.precomposed).map(\.transactionID) == [Self.letterK])
        #expect(receipt.purchases(ofProduct: Self.decomposed).map(\.transactionID) == [Self.kelvin])
        #expect(receipt.purchase(withTransactionID: Self.letterK)?.productID.map(ExactIdentifier.init) == ExactIdentifier(Self.precomposed))
        #expect(receipt.purchase(withTransactionID: Self.kelvin)?.productID.map(ExactIdentifier.init) == ExactIdentifier(Self.decomposed))
        #expect(receipt.purchase(withTransactionID: "tx-k") == nil)
    }

    @Test func latestTransactionsKeepsLookAlikeOriginalsApart() {
        let latest = Self.receipt.latestTransactions()
        #expect(latest.count == 2)
        #expect(latest[ExactIdentifier(Self.kelvin)]?.transactionID.map(ExactIdentifier.init) == ExactIdentifier(Self.kelvin))
        #expect(latest[ExactIdentifier(Self.letterK)]?.transactionID.map(ExactIdentifier.init) == ExactIdentifier(Self.letterK))
    }

    @Test func introductoryOfferEligibilityByExactProduct() {
        // The trial was taken on the decomposed product: a group naming only the precomposed
        // one is still eligible.
        #expect(Self.receipt.isEligibleForIntroductoryOffer(subscriptionGroup: [ExactIdentifier(Self.precomposed)]))
        #expect(!Self.receipt.isEligibleForIntroductoryOffer(subscriptionGroup: [ExactIdentifier(Self.decomposed)]))
    }

    // MARK: receipt-dump

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
        #expect(lookAlike.output.contains("FAIL: expected \(Self.precomposed), receipt has \(Self.decomposed) (same text, other bytes: expected UTF-8 636f6d2e6578616d706c652e636166c3a9, receipt has 636f6d2e6578616d706c652e63616665cc81)"))
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
        #expect(lookAlike.output.contains("VERIFIED (appStore"))
        #expect(lookAlike.output.contains("Check bundle-id:              FAIL"))
        #expect(try tool.run("--root", "pki/test-root.der", "--bundle-id", Self.decomposed, "hostile/decomposed-bundle-id.receipt").status == 0)
    }
}
