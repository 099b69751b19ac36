import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The library's queries on the generated sample and on real receipts.
struct QueryTests {
    let sample: Receipt

    init() throws {
        sample = try testRootVerifier().verifyAndDecode(fixture("sample.receipt")).receipt
    }

    func date(_ text: String) -> Date { RFC3339.date(from: text)! }

    @Test func purchasesByProductAndTransaction() {
        #expect(sample.purchases(ofProduct: "com.example.pro.monthly").map(\.transactionID) == ["2000000000000002"])
        #expect(sample.purchases(ofProduct: "com.example.none").isEmpty)
        #expect(sample.purchase(withTransactionID: "2000000000000003")?.productID == "com.example.unlock")
        #expect(sample.purchase(withTransactionID: "9") == nil)
    }

    @Test func activeSubscriptionsAtAnInstant() {
        #expect(sample.activeSubscriptions(at: date("2025-06-01T00:00:00Z")).map(\.productID) == ["com.example.pro.monthly"])
        #expect(sample.activeSubscriptions(at: date("2025-06-20T09:30:00Z")).isEmpty)  // expiry is exclusive
        #expect(sample.activeSubscriptions(at: date("2025-05-20T09:29:59Z")).isEmpty)  // before purchase
        #expect(sample.activeSubscriptions(at: date("2025-07-01T00:00:00Z")).isEmpty)
    }

    @Test func cancelledAndConsumables() {
        #expect(sample.cancelledPurchases.map(\.productID) == ["com.example.unlock"])
        #expect(sample.unfinishedConsumables.map(\.productID) == ["com.example.coins.100"])
    }

    @Test func introductoryOfferEligibility() {
        // The monthly subscription was a trial: the group is used up, other groups are not.
        #expect(!sample.isEligibleForIntroductoryOffer(subscriptionGroup: ["com.example.pro.monthly", "com.example.pro.yearly"]))
        #expect(sample.isEligibleForIntroductoryOffer(subscriptionGroup: ["com.example.other.monthly"]))
        #expect(sample.isEligibleForIntroductoryOffer(subscriptionGroup: ["com.example.coins.100"]))
    }

    @Test func deviceCheck() {
        let guid: [UInt8] = [0x6F, 0x1C, 0x2D, 0x3E, 0x4A, 0x5B, 0x4C, 0x6D, 0x8E, 0x7F, 0x9A, 0x0B, 0x1C, 0x2D, 0x3E, 0x4F]
        #expect(sample.isIssued(toDevice: guid))
        var other = guid
        other[15] ^= 1
        #expect(!sample.isIssued(toDevice: other))
        #expect(!Receipt().isIssued(toDevice: guid))
    }

    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
    func latestTransactionPerOriginalOnARealReceipt() throws {
        let bytes = [UInt8](try Data(contentsOf: Paths.corpus.appendingPathComponent("real/sandbox-20200722T1739-com.revenuecat.sampleapp.receipt")))
        let receipt = try ReceiptVerifier().verifyAndDecode(bytes).receipt
        let latest = receipt.latestTransactions()
        // Nine transactions of one original; the latest is the one bought 2020-07-22T17:39:06Z.
        #expect(Array(latest.keys) == ["1000000692878476"])
        #expect(latest["1000000692878476"]?.transactionID == "1000000696553650")
    }

    @Test func excludeOldTransactionsKeepsLookAlikeOriginalsApart() {
        // Two subscriptions whose original transaction ids are equal as Strings (Kelvin sign
        // and K): each keeps its own latest period.
        func period(_ id: String, original: String, purchased: TimeInterval) -> InAppPurchase {
            var purchase = InAppPurchase()
            purchase.transactionID = id
            purchase.originalTransactionID = original
            purchase.purchaseDate = Date(timeIntervalSince1970: purchased)
            purchase.expiresDate = Date(timeIntervalSince1970: purchased + 100)
            return purchase
        }
        var receipt = Receipt()
        receipt.inAppPurchases = [period("1", original: "tx-\u{212A}", purchased: 0), period("2", original: "tx-\u{212A}", purchased: 100),
                                  period("3", original: "tx-K", purchased: 50), period("4", original: "tx-K", purchased: 10)]
        #expect(receipt.excludingOldTransactions().inAppPurchases.map(\.transactionID) == ["2", "3"])
        // Renewals without a transaction id of their own: only the latest stays.
        var untagged = Receipt()
        let renewals = [period("x", original: "tx-9", purchased: 0), period("x", original: "tx-9", purchased: 100)]
            .map { renewal in var renewal = renewal; renewal.transactionID = nil; return renewal }
        untagged.inAppPurchases = renewals
        #expect(untagged.excludingOldTransactions().inAppPurchases == [renewals[1]])
    }
}
