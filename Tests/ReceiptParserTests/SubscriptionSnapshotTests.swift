import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// What a store keeps of a snapshot, and the order it keeps them in: the bytes read back to the
/// same model, members the library does not know included, and the order a database comparing
/// those bytes applies is the library's.
struct SubscriptionSnapshotTests {
    typealias Rules = SubscriptionRulesTests

    @Test func snapshotBytesReadBackToTheSameModel() throws {
        let payload = #"{"transactionId":"7","originalTransactionId":"5","purchaseDate":1750000000123,"signedDate":1750000000456,"type":"Auto-Renewable Subscription","price":9990,"aMemberAppleAddsLater":{"n":[1,2.5,"x\u0001"]}}"#
        let transaction = try SignedTransaction(payload: StrictJSON.parse(Array(payload.utf8)))
        let back = try SignedTransaction(snapshotBytes: transaction.snapshotBytes)
        #expect(back == transaction)
        #expect(back.unknownFields.map(\.key) == ["aMemberAppleAddsLater"])
        #expect(back.snapshotBytes == transaction.snapshotBytes)

        let renewal = try Rules.renewal(retrying: true, grace: Rules.t0 + 3 * Rules.day, signed: Rules.t0)
        #expect(try SignedRenewalInfo(snapshotBytes: renewal.snapshotBytes) == renewal)
    }

    @Test func bytesThatAreNotASnapshotAreATypedError() {
        #expect(throws: ReceiptError.self) { try SignedTransaction(snapshotBytes: Array("{\"transactionId\":7}".utf8)) }
        #expect(throws: ReceiptError.self) { try SignedTransaction(snapshotBytes: Array("{\"transactionId\":".utf8)) }
        #expect(throws: ReceiptError.self) { try SignedRenewalInfo(snapshotBytes: Array("{\"signedDate\":1}".utf8)) }  // not RFC 3339
    }

    /// Later signedDate wins; at the same instant the larger bytes, which is what `BLOB` and
    /// `BYTEA` comparisons answer; a snapshot never supersedes itself.
    @Test func supersedingIsATotalOrder() throws {
        let (t0, day) = (Rules.t0, Rules.day)
        let early = try Rules.transaction("1", bought: t0, expires: t0 + day, signed: t0)
        let late = try Rules.transaction("1", bought: t0, expires: t0 + day, revoked: t0 + day, signed: t0 + day)
        let sameInstant = try Rules.transaction("1", bought: t0, expires: t0 + 2 * day, signed: t0)
        #expect(late.supersedes(early) && !early.supersedes(late))
        #expect(!early.supersedes(early))
        let larger = early.snapshotBytes.lexicographicallyPrecedes(sameInstant.snapshotBytes) ? sameInstant : early
        let smaller = larger == early ? sameInstant : early
        #expect(larger.supersedes(smaller) && !smaller.supersedes(larger))
    }

    @Test func aReceiptPurchaseInStoreKitShape() throws {
        var receipt = Receipt()
        receipt.receiptType = "ProductionSandbox"
        receipt.bundleID = "com.example.app"
        receipt.creationDate = Date(timeIntervalSince1970: 1_750_000_500)
        var purchase = InAppPurchase()
        purchase.transactionID = "2"
        purchase.originalTransactionID = "1"
        purchase.productID = "pro.monthly"
        purchase.purchaseDate = Date(timeIntervalSince1970: 1_750_000_000)
        purchase.expiresDate = Date(timeIntervalSince1970: 1_752_592_000)
        purchase.cancellationDate = Date(timeIntervalSince1970: 1_750_000_100)
        purchase.quantity = 1
        purchase.webOrderLineItemID = 99
        let subscription = SignedTransaction(purchase: purchase, in: receipt)
        #expect(subscription.transactionId == "2" && subscription.originalTransactionId == "1" && subscription.subscriptionKey == "1")
        #expect(subscription.type == .autoRenewableSubscription && subscription.environment == "Sandbox")
        #expect(subscription.signedDate == receipt.creationDate && subscription.revocationDate == purchase.cancellationDate)
        #expect(subscription.bundleId == "com.example.app" && subscription.quantity == 1 && subscription.webOrderLineItemId == "99")
        let state = SubscriptionRules.state(originalTransactionId: "1", transactions: [subscription], renewalInfo: nil,
                                            at: Date(timeIntervalSince1970: 1_750_000_200))
        #expect(state?.status == .revoked)

        // Without an expiry a receipt cannot say what was bought: never an entitlement.
        purchase.expiresDate = nil
        purchase.originalTransactionID = nil
        let unknown = SignedTransaction(purchase: purchase, in: receipt)
        #expect(unknown.type == nil && unknown.subscriptionKey == "2")
        #expect(SubscriptionRules.state(originalTransactionId: "2", transactions: [unknown], renewalInfo: nil, at: .distantFuture) == nil)
    }
}
