#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers to the questions servers and support staff ask of a decoded receipt.
///
/// These read only the decoded receipt: verify it first (``ReceiptVerifier``), or the answers
/// describe whatever an attacker wrote. Identifiers match byte for byte (``ExactIdentifier``):
/// `"café"` precomposed does not find a product written `"cafe\u{301}"`.
extension Receipt {
    /// Every in-app purchase of `productID`, in receipt order.
    ///
    /// ```swift
    /// let coins = receipt.purchases(ofProduct: "com.example.coins.100")
    /// ```
    public func purchases(ofProduct productID: String) -> [InAppPurchase] {
        let wanted = ExactIdentifier(productID)
        return inAppPurchases.filter { $0.productID.map(ExactIdentifier.init) == wanted }
    }

    /// The in-app purchase with this transaction identifier, if the receipt lists it.
    public func purchase(withTransactionID transactionID: String) -> InAppPurchase? {
        let wanted = ExactIdentifier(transactionID)
        return inAppPurchases.first { $0.transactionID.map(ExactIdentifier.init) == wanted }
    }

    /// For each original transaction, its latest transaction: the renewal with the latest
    /// purchase date (ties broken by the later expiry, then the larger transaction identifier).
    /// Entries without an original transaction identifier stand for themselves. Keyed by
    /// ``ExactIdentifier``: original identifiers that differ in bytes stay apart even when
    /// `String` would call them equal.
    ///
    /// ```swift
    /// for (original, latest) in receipt.latestTransactions() { print(original, latest.expiresDate as Any) }
    /// let latestOfOne = receipt.latestTransactions()["1000000692878476"]
    /// ```
    public func latestTransactions() -> [ExactIdentifier: InAppPurchase] {
        var latest: [ExactIdentifier: InAppPurchase] = [:]
        for purchase in inAppPurchases {
            guard let key = (purchase.originalTransactionID ?? purchase.transactionID).map(ExactIdentifier.init) else { continue }
            if let current = latest[key], !purchase.isLater(than: current) { continue }
            latest[key] = purchase
        }
        return latest
    }

    /// The receipt as Apple's `exclude-old-transactions` answers it: of each auto-renewable
    /// subscription only its latest period (``latestTransactions()``); other purchases stay.
    public func excludingOldTransactions() -> Receipt {
        let latest = latestTransactions()
        var receipt = self
        receipt.inAppPurchases = inAppPurchases.filter { purchase in
            guard purchase.expiresDate != nil, let original = purchase.originalTransactionID ?? purchase.transactionID else {
                return true
            }
            // The entry itself must be the latest of its original, not merely share its
            // transaction id: two renewals without one would otherwise both be "latest".
            return latest[ExactIdentifier(original)] == purchase
        }
        return receipt
    }

    /// Auto-renewable subscription periods active at `date`: purchased at or before it, expiring
    /// after it, and not cancelled. Sorted by expiry, latest first.
    ///
    /// ```swift
    /// let isPro = !receipt.activeSubscriptions(at: Date()).filter { $0.productID == "pro.monthly" }.isEmpty
    /// ```
    public func activeSubscriptions(at date: Date) -> [InAppPurchase] {
        inAppPurchases
            .filter { $0.isActiveSubscription(at: date) }
            .sorted { ($0.expiresDate ?? .distantPast) > ($1.expiresDate ?? .distantPast) }
    }

    /// Whether the user may still get an introductory offer (free trial or intro price) for a
    /// subscription group, given the group's product identifiers. Apple's rule: not if any
    /// purchase of a product in the group was a trial or an introductory-price period. Product
    /// identifiers match byte for byte (a `Set<String>` would merge canonically equal ones).
    ///
    /// ```swift
    /// let eligible = receipt.isEligibleForIntroductoryOffer(subscriptionGroup: ["pro.monthly", "pro.yearly"])
    /// ```
    public func isEligibleForIntroductoryOffer(subscriptionGroup productIDs: Set<ExactIdentifier>) -> Bool {
        !inAppPurchases.contains { purchase in
            guard let product = purchase.productID, productIDs.contains(ExactIdentifier(product)) else { return false }
            return purchase.isTrialPeriod == true || purchase.isInIntroOfferPeriod == true
        }
    }

    /// Purchases Apple cancelled (refunded), in receipt order.
    public var cancelledPurchases: [InAppPurchase] {
        inAppPurchases.filter { $0.cancellationDate != nil }
    }

    /// Consumable purchases still listed: Apple keeps a consumable in the receipt only until the
    /// app finishes its transaction, so these are purchases the app may not have delivered yet.
    /// Consumables are recognised by product type 1 (attribute 1707), which Apple writes for them.
    public var unfinishedConsumables: [InAppPurchase] {
        inAppPurchases.filter { $0.productType == InAppPurchase.consumableProductType }
    }

    /// Whether the receipt was issued for the device with this identifier: SHA-1 of the device
    /// identifier (identifierForVendor's 16 bytes on iOS, the MAC address on macOS), the opaque
    /// value and the bundle identifier attribute's bytes must equal attribute 5.
    ///
    /// ```swift
    /// let mine = receipt.isIssued(toDevice: Array(uuidBytes))
    /// ```
    public func isIssued(toDevice deviceIdentifier: [UInt8]) -> Bool {
        guard let opaqueValue, let sha1Hash,
              let bundleAttribute = attributes.first(where: { $0.attributeType == .bundleID })
        else { return false }
        let digest = Digest.sha1.hash(deviceIdentifier + Array(opaqueValue) + Array(bundleAttribute.value))
        return ByteString(digest) == sha1Hash
    }
}

extension InAppPurchase {
    /// Product type 1 (attribute 1707) marks consumables in the real receipts we have (products
    /// named "consumable", "boost"); 0 marks non-consumables, 2 non-renewing subscriptions and
    /// 3 auto-renewable ones. Apple does not document the attribute.
    static let consumableProductType: Int64 = 1

    /// Whether this is an auto-renewable subscription period covering `date` and not cancelled.
    public func isActiveSubscription(at date: Date) -> Bool {
        guard let expiresDate, cancellationDate == nil else { return false }
        return expiresDate > date && (purchaseDate.map { $0 <= date } ?? true)
    }

    fileprivate func isLater(than other: InAppPurchase) -> Bool {
        let mine = (purchaseDate ?? .distantPast, expiresDate ?? .distantPast)
        let theirs = (other.purchaseDate ?? .distantPast, other.expiresDate ?? .distantPast)
        if mine != theirs { return mine > theirs }
        // Longer, then later in byte order: numeric order for digit strings, and never a tie
        // between identifiers that differ only in normalisation.
        let (a, b) = (ExactIdentifier(transactionID ?? ""), ExactIdentifier(other.transactionID ?? ""))
        return a.text.utf8.count != b.text.utf8.count ? a.text.utf8.count > b.text.utf8.count : b < a
    }
}
