import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// Identifiers match byte for byte everywhere: in the library's queries here, and in receipt-dump's
/// checks, filters and reconciliation (ReceiptDumpTests' ReceiptDumpExactIdentifierTests). Each
/// pair below is equal as Swift `String`s.
struct ExactIdentifierTests {
    static let (precomposed, decomposed) = (TestReceipt.LookAlike.precomposed, TestReceipt.LookAlike.decomposed)
    static let (kelvin, letterK) = (TestReceipt.LookAlike.kelvin, TestReceipt.LookAlike.letterK)

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
}
