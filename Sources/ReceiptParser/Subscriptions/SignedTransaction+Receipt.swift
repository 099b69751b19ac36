#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SignedTransaction {
    /// A purchase of a verified receipt in StoreKit 2's shape, so that subscription rules and
    /// stores treat both formats alike. It is dated by the receipt's creation date (`signedDate`),
    /// the instant Apple vouched for it; a cancellation is its revocation.
    ///
    /// A receipt does not name product types: a purchase with an expiry date is taken for an
    /// auto-renewable subscription (non-renewing ones carry none); any other has no ``type``, so
    /// it is never an entitlement (a receipt cannot tell a non-consumable from a consumable).
    /// The receipt's attributes are in ``Receipt``; this shape carries only what both formats name.
    public init(purchase: InAppPurchase, in receipt: Receipt) {
        self.init()
        transactionId = purchase.transactionID
        originalTransactionId = purchase.originalTransactionID
        productId = purchase.productID
        bundleId = receipt.bundleID
        purchaseDate = purchase.purchaseDate
        originalPurchaseDate = purchase.originalPurchaseDate
        expiresDate = purchase.expiresDate
        revocationDate = purchase.cancellationDate
        quantity = purchase.quantity.flatMap { Int32(exactly: $0) }
        webOrderLineItemId = purchase.webOrderLineItemID.map(String.init)
        type = purchase.expiresDate == nil ? nil : .autoRenewableSubscription
        environment = receipt.environment.storeKitName
        signedDate = receipt.creationDate
    }
}
