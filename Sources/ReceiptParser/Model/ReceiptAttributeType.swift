/// The type number of a receipt attribute, with a name for each type whose meaning is agreed.
///
/// Apple numbers the attributes of a receipt (`0...21` at the top level) and of an in-app
/// purchase (`1701...1721`); some are documented, others only observed. Any number is a valid
/// type: receipts carry types nobody has named, and ``ReceiptAttribute`` keeps them too.
///
/// ```swift
/// let bundle = receipt.attributes.first { $0.attributeType == .bundleID }
/// ```
///
/// In JSON a type is its number.
public struct ReceiptAttributeType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The type number as encoded in the attribute's `type INTEGER`.
    public let rawValue: Int

    /// The type with this number.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The type number, as receipts and Apple's documentation write it.
    public var description: String { String(rawValue) }

    /// The name of a type whose meaning is agreed, as its constant below spells it
    /// (`bundleID`, `expiresDate`, `inAppPurchase`); nil for the others. receipt-dump's asn1
    /// view shows it beside the number.
    public var name: String? {
        switch self {
        case .receiptType: "receiptType"
        case .appItemID: "appItemID"
        case .bundleID: "bundleID"
        case .applicationVersion: "applicationVersion"
        case .opaqueValue: "opaqueValue"
        case .sha1Hash: "sha1Hash"
        case .ageRating: "ageRating"
        case .creationDate: "creationDate"
        case .downloadID: "downloadID"
        case .versionExternalIdentifier: "versionExternalIdentifier"
        case .inAppPurchase: "inAppPurchase"
        case .originalPurchaseDate: "originalPurchaseDate"
        case .originalApplicationVersion: "originalApplicationVersion"
        case .expirationDate: "expirationDate"
        case .quantity: "quantity"
        case .productID: "productID"
        case .transactionID: "transactionID"
        case .purchaseDate: "purchaseDate"
        case .originalTransactionID: "originalTransactionID"
        case .inAppOriginalPurchaseDate: "inAppOriginalPurchaseDate"
        case .productType: "productType"
        case .expiresDate: "expiresDate"
        case .webOrderLineItemID: "webOrderLineItemID"
        case .cancellationDate: "cancellationDate"
        case .isTrialPeriod: "isTrialPeriod"
        case .isInIntroOfferPeriod: "isInIntroOfferPeriod"
        case .promotionalOfferID: "promotionalOfferID"
        default: nil
        }
    }

    // MARK: The receipt's attributes

    /// 0, `receipt_type`: the environment (`Production`, `ProductionSandbox`, `Xcode`, ...).
    /// Undocumented as an ASN.1 field. ``Receipt/receiptType``.
    public static let receiptType = ReceiptAttributeType(rawValue: 0)
    /// 1, `app_item_id`: the App Store's identifier of the app. Undocumented as an ASN.1 field.
    /// ``Receipt/appItemID``.
    public static let appItemID = ReceiptAttributeType(rawValue: 1)
    /// 2, Apple's "Bundle Identifier" (`bundle_id`), a UTF8String. ``Receipt/bundleID``.
    public static let bundleID = ReceiptAttributeType(rawValue: 2)
    /// 3, Apple's "App Version" (`application_version`), a UTF8String.
    /// ``Receipt/applicationVersion``.
    public static let applicationVersion = ReceiptAttributeType(rawValue: 3)
    /// 4, Apple's "Opaque Value": raw bytes for the device check. ``Receipt/opaqueValue``.
    public static let opaqueValue = ReceiptAttributeType(rawValue: 4)
    /// 5, Apple's "SHA-1 Hash": raw bytes for the device check. ``Receipt/sha1Hash``.
    public static let sha1Hash = ReceiptAttributeType(rawValue: 5)
    /// 10, the app's age rating. Undocumented. ``Receipt/ageRating``.
    public static let ageRating = ReceiptAttributeType(rawValue: 10)
    /// 12, Apple's "Receipt Creation Date" (`receipt_creation_date`), an RFC 3339 IA5String.
    /// ``Receipt/creationDate``.
    public static let creationDate = ReceiptAttributeType(rawValue: 12)
    /// 15, `download_id`. Undocumented as an ASN.1 field. ``Receipt/downloadID``.
    public static let downloadID = ReceiptAttributeType(rawValue: 15)
    /// 16, `version_external_identifier`. Undocumented as an ASN.1 field.
    /// ``Receipt/versionExternalIdentifier``.
    public static let versionExternalIdentifier = ReceiptAttributeType(rawValue: 16)
    /// 17, Apple's "In-App Purchase Receipt" (`in_app`): a SET of the attributes of one
    /// purchase. ``Receipt/inAppPurchases``.
    public static let inAppPurchase = ReceiptAttributeType(rawValue: 17)
    /// 18, `original_purchase_date` of the app, an RFC 3339 IA5String. Undocumented as an
    /// ASN.1 field. ``Receipt/originalPurchaseDate``.
    public static let originalPurchaseDate = ReceiptAttributeType(rawValue: 18)
    /// 19, Apple's "Original Application Version" (`original_application_version`), a
    /// UTF8String. ``Receipt/originalApplicationVersion``.
    public static let originalApplicationVersion = ReceiptAttributeType(rawValue: 19)
    /// 21, Apple's "Receipt Expiration Date" (`expiration_date`), an RFC 3339 IA5String.
    /// ``Receipt/expirationDate``.
    public static let expirationDate = ReceiptAttributeType(rawValue: 21)

    // MARK: An in-app purchase's attributes

    /// 1701, Apple's "Quantity" (`quantity`), an INTEGER. ``InAppPurchase/quantity``.
    public static let quantity = ReceiptAttributeType(rawValue: 1701)
    /// 1702, Apple's "Product Identifier" (`product_id`), a UTF8String.
    /// ``InAppPurchase/productID``.
    public static let productID = ReceiptAttributeType(rawValue: 1702)
    /// 1703, Apple's "Transaction Identifier" (`transaction_id`), a UTF8String.
    /// ``InAppPurchase/transactionID``.
    public static let transactionID = ReceiptAttributeType(rawValue: 1703)
    /// 1704, Apple's "Purchase Date" (`purchase_date`), an RFC 3339 IA5String.
    /// ``InAppPurchase/purchaseDate``.
    public static let purchaseDate = ReceiptAttributeType(rawValue: 1704)
    /// 1705, Apple's "Original Transaction Identifier" (`original_transaction_id`), a
    /// UTF8String. ``InAppPurchase/originalTransactionID``.
    public static let originalTransactionID = ReceiptAttributeType(rawValue: 1705)
    /// 1706, Apple's "Original Purchase Date" of an in-app purchase (`original_purchase_date`),
    /// an RFC 3339 IA5String; named apart from the app's ``originalPurchaseDate`` (18).
    /// ``InAppPurchase/originalPurchaseDate``.
    public static let inAppOriginalPurchaseDate = ReceiptAttributeType(rawValue: 1706)
    /// 1707, the product type as observed (0 to 3), an INTEGER. Undocumented.
    /// ``InAppPurchase/productType``.
    public static let productType = ReceiptAttributeType(rawValue: 1707)
    /// 1708, Apple's "Subscription Expiration Date" (`expires_date`), an RFC 3339 IA5String.
    /// ``InAppPurchase/expiresDate``.
    public static let expiresDate = ReceiptAttributeType(rawValue: 1708)
    /// 1711, Apple's "Web Order Line Item ID" (`web_order_line_item_id`), an INTEGER.
    /// ``InAppPurchase/webOrderLineItemID``.
    public static let webOrderLineItemID = ReceiptAttributeType(rawValue: 1711)
    /// 1712, Apple's "Cancellation Date" (`cancellation_date`), an RFC 3339 IA5String.
    /// ``InAppPurchase/cancellationDate``.
    public static let cancellationDate = ReceiptAttributeType(rawValue: 1712)
    /// 1713, `is_trial_period`, an INTEGER (non-zero: a free trial).
    /// ``InAppPurchase/isTrialPeriod``.
    public static let isTrialPeriod = ReceiptAttributeType(rawValue: 1713)
    /// 1719, Apple's "Subscription Introductory Price Period" (`is_in_intro_offer_period`), an
    /// INTEGER. ``InAppPurchase/isInIntroOfferPeriod``.
    public static let isInIntroOfferPeriod = ReceiptAttributeType(rawValue: 1719)
    /// 1721, Apple's "Promotional Offer Identifier" (`promotional_offer_id`), a UTF8String.
    /// ``InAppPurchase/promotionalOfferID``.
    public static let promotionalOfferID = ReceiptAttributeType(rawValue: 1721)
}
