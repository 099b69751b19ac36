import Foundation
import ReceiptParser
import Testing
import ReceiptLedger

@Suite("LedgerTransaction from the library's verified models")
struct LedgerTransactionConversionTests {
    @Test func aReceiptsPurchasesTakeTheReceiptsBundleIdAndEnvironment() {
        var receipt = Receipt()
        receipt.bundleID = "com.example.app"
        receipt.receiptType = "ProductionSandbox"
        var purchase = InAppPurchase()
        purchase.transactionID = "1000"
        purchase.originalTransactionID = "900"
        purchase.productID = "com.example.monthly"
        purchase.purchaseDate = Date(timeIntervalSince1970: 1_690_000_000)
        purchase.expiresDate = Date(timeIntervalSince1970: 1_692_592_000)
        purchase.cancellationDate = Date(timeIntervalSince1970: 1_691_000_000)
        var withoutId = InAppPurchase()
        withoutId.productID = "com.example.lost"
        receipt.inAppPurchases = [purchase, withoutId]

        #expect(LedgerTransaction.transactions(of: receipt) == [
            LedgerTransaction(
                transactionId: "1000", originalTransactionId: "900", productId: "com.example.monthly",
                bundleId: "com.example.app", environment: "Sandbox",
                purchaseDate: Date(timeIntervalSince1970: 1_690_000_000),
                expiresDate: Date(timeIntervalSince1970: 1_692_592_000), source: .receipt,
                revocationDate: Date(timeIntervalSince1970: 1_691_000_000), revocationReason: "cancelled in receipt",
                snapshot: SignedTransaction(purchase: purchase, in: receipt)),
        ])
    }

    @Test func aSignedTransactionKeepsItsAppAccountTokenInSmallLetters() {
        var transaction = SignedTransaction()
        transaction.transactionId = "2000"
        transaction.originalTransactionId = "2000"
        transaction.productId = "com.example.pro"
        transaction.bundleId = "com.example.app"
        transaction.environment = "Production"
        transaction.purchaseDate = Date(timeIntervalSince1970: 1_690_000_000)
        transaction.appAccountToken = "9F2C4A8E-6B1D-4E3F-A5C7-0D8B2E6F1A3C"

        #expect(LedgerTransaction(signedTransaction: transaction) == LedgerTransaction(
            transactionId: "2000", originalTransactionId: "2000", productId: "com.example.pro",
            bundleId: "com.example.app", environment: "Production",
            purchaseDate: Date(timeIntervalSince1970: 1_690_000_000), source: .jws,
            appAccountToken: "9f2c4a8e-6b1d-4e3f-a5c7-0d8b2e6f1a3c", snapshot: transaction))
    }

    @Test func aRevokedSignedTransactionCarriesItsRevocation() {
        var transaction = SignedTransaction()
        transaction.transactionId = "2000"
        transaction.revocationDate = Date(timeIntervalSince1970: 1_691_000_000)
        transaction.revocationReason = .refundedDueToIssue
        let converted = LedgerTransaction(signedTransaction: transaction)
        #expect(converted?.revocationDate == Date(timeIntervalSince1970: 1_691_000_000))
        #expect(converted?.revocationReason == "revoked (reason 1)")
        #expect(converted?.environment == "Unknown")
    }

    @Test func withoutATransactionIdThereIsNothingToCredit() {
        #expect(LedgerTransaction(signedTransaction: SignedTransaction()) == nil)
        #expect(LedgerTransaction(purchase: InAppPurchase(), in: Receipt()) == nil)
    }
}
