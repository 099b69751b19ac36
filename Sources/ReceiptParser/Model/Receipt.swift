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
public struct Receipt: Sendable, Hashable {
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
