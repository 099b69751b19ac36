#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A decoded app receipt.
///
/// Named properties hold the attributes whose meaning is agreed; ``attributes`` holds every
/// top-level attribute as signed, in encoded order (in-app purchases included, as type 17).
/// A property is nil when its attribute is absent or, for dates, an empty string.
public struct Receipt: Sendable, Hashable, Codable {
    /// Attribute 0, the environment as written: `Production`, `ProductionSandbox`, `Xcode`, ...
    public var receiptType: String?
    /// Attribute 1, the App Store's identifier of the app (0 in the sandbox).
    public var appItemID: Int64?
    /// Attribute 2, the app's bundle identifier.
    public var bundleID: String?
    /// Attribute 3, the app version (CFBundleVersion) the receipt was issued for.
    public var applicationVersion: String?
    /// Attribute 4, opaque bytes used in the device check.
    public var opaqueValue: ByteString?
    /// Attribute 5, SHA-1 of device identifier, opaque value and bundle identifier.
    public var sha1Hash: ByteString?
    /// Attribute 10, the app's age rating.
    public var ageRating: String?
    /// Attribute 12, when the App Store created this receipt.
    public var creationDate: Date?
    /// Attribute 15, the download identifier.
    public var downloadID: Int64?
    /// Attribute 16, the App Store's identifier of the app version.
    public var versionExternalIdentifier: Int64?
    /// Attribute 18, when the app was first bought.
    public var originalPurchaseDate: Date?
    /// Attribute 19, the app version first bought.
    public var originalApplicationVersion: String?
    /// Attribute 21, when the receipt expires (volume purchase program and Xcode receipts).
    public var expirationDate: Date?
    /// Every attribute 17, decoded, in encoded order.
    public var inAppPurchases: [InAppPurchase]
    /// Every top-level attribute, known or not, as signed and in encoded order.
    public var attributes: ReceiptAttributeSet

    /// The environment the receipt comes from, read from ``receiptType``.
    public var environment: Environment { Environment(receiptType: receiptType) }

    /// Makes an empty receipt; the decoder fills it.
    public init() {
        inAppPurchases = []
        attributes = ReceiptAttributeSet()
    }
}

/// Where a receipt was issued.
///
/// What a verifyReceipt server answers for each environment is decided in one place,
/// ``VerifyReceiptResponse/environmentCheck(_:expecting:)``.
public enum Environment: String, Sendable, Codable, CaseIterable {
    /// The App Store (`Production`, or `ProductionVPP` for the volume purchase program).
    case production
    /// The App Store sandbox (`ProductionSandbox`, or `ProductionVPPSandbox`).
    case sandbox
    /// Xcode's StoreKit Testing (`Xcode`).
    case xcode
    /// A receipt type not listed above (`production`, `Sandbox`, a look-alike in other
    /// Unicode), or none: a receipt that cannot be placed.
    case unknown

    /// Maps the receipt type attribute to an environment. The type must match one of Apple's
    /// byte for byte: no case folding, no Unicode normalisation.
    public init(receiptType: String?) {
        switch receiptType.map(ExactIdentifier.init) {
        case "Production", "ProductionVPP": self = .production
        case "ProductionSandbox", "ProductionVPPSandbox": self = .sandbox
        case "Xcode": self = .xcode
        default: self = .unknown
        }
    }
}

/// One in-app purchase entry (attribute 17) of a receipt.
public struct InAppPurchase: Sendable, Hashable, Codable {
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
