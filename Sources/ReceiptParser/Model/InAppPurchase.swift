#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One in-app purchase entry (attribute 17) of a receipt.
public struct InAppPurchase: Sendable, Hashable {
    /// 1701, the number of items bought.
    public var quantity: Int64?
    /// 1702, the product identifier.
    public var productID: String?
    /// 1703, the transaction identifier.
    public var transactionID: String?
    /// 1704, when this transaction happened (a renewal's own date for subscriptions).
    public var purchaseDate: Date?
    /// 1705, the transaction identifier of the original purchase.
    public var originalTransactionID: String?
    /// 1706, the date of the original purchase.
    public var originalPurchaseDate: Date?
    /// 1707, the product type as observed in receipts (0 to 3); undocumented by Apple.
    public var productType: Int64?
    /// 1708, when an auto-renewable subscription period ends.
    public var expiresDate: Date?
    /// 1711, the primary key of the subscription purchase event on Apple's side.
    public var webOrderLineItemID: Int64?
    /// 1712, when Apple support cancelled (refunded) the transaction.
    public var cancellationDate: Date?
    /// 1713, whether the period is a free trial.
    public var isTrialPeriod: Bool?
    /// 1719, whether the period is an introductory price period.
    public var isInIntroOfferPeriod: Bool?
    /// 1721, the identifier of the promotional offer redeemed.
    public var promotionalOfferID: String?
    /// Every attribute of this entry, known or not, as signed and in encoded order.
    public var attributes: ReceiptAttributeSet

    /// Makes an empty entry; the decoder fills it.
    public init() { attributes = ReceiptAttributeSet() }
}
