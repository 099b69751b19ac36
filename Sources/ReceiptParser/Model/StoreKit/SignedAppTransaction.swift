#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An app transaction: the payload of a device's `AppTransaction` JWS and of a notification's
/// `appData.signedAppTransactionInfo` (Apple's AppTransaction).
///
/// It has no `signedDate`: it is judged at its ``receiptCreationDate`` (``signedDate`` says so),
/// and its ``receiptType`` is its environment.
public struct SignedAppTransaction: Sendable, Hashable, Codable, JSONWritable {
    /// The App Store's identifier of the app (production only).
    public var appAppleId: Int64?
    /// The identifier of the app download.
    public var appTransactionId: String?
    /// The app version (`CFBundleVersion`) the data was made for.
    public var applicationVersion: String?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// Base64 of the device verification SHA-384 hash.
    public var deviceVerification: String?
    /// The UUID used in ``deviceVerification``, as written.
    public var deviceVerificationNonce: String?
    /// The app version the customer first got.
    public var originalApplicationVersion: String?
    /// The platform of the first purchase.
    public var originalPlatform: OriginalPlatform?
    /// When the customer first got the app.
    public var originalPurchaseDate: Date?
    /// When the customer pre-ordered the app.
    public var preorderDate: Date?
    /// When the App Store made the data: the instant certificates are judged at.
    public var receiptCreationDate: Date?
    /// The environment: `Production`, `Sandbox`, `Xcode`, ....
    public var receiptType: String?
    /// The App Store's identifier of the app version.
    public var versionExternalIdentifier: Int64?
    /// The members this library does not know, in the order signed; written back after the
    /// known ones, so nothing Apple sends is lost.
    public var unknownFields: [StrictJSON.Member] = []

    /// An empty value, every field absent.
    public init() {}

    /// Reads an app transaction payload as Apple signs it (dates in milliseconds since 1970).
    ///
    /// Throws ``ReceiptError/Code/wrongValueType``, naming the field and the JSON type found, when
    /// a documented field has another type (or an integer field a fraction or more than its bits);
    /// `null` counts as absent; members not documented are kept in ``unknownFields``.
    public init(payload: StrictJSON.Value) throws(ReceiptError) {
        self = try .read(payload)
    }

    /// Reads the JSON ``write(to:)`` writes (dates as RFC 3339 strings).
    public init(from decoder: any Decoder) throws { self = try .decoded(from: decoder) }

    /// Writes the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    /// The known fields with Apple's names, keys sorted, dates as RFC 3339 with milliseconds,
    /// then ``unknownFields`` as signed.
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("appAppleId", appAppleId)
        json.member("appTransactionId", appTransactionId)
        json.member("applicationVersion", applicationVersion)
        json.member("bundleId", bundleId)
        json.member("deviceVerification", deviceVerification)
        json.member("deviceVerificationNonce", deviceVerificationNonce)
        json.member("originalApplicationVersion", originalApplicationVersion)
        json.member("originalPlatform", originalPlatform)
        json.member("originalPurchaseDate", milliseconds: originalPurchaseDate)
        json.member("preorderDate", milliseconds: preorderDate)
        json.member("receiptCreationDate", milliseconds: receiptCreationDate)
        json.member("receiptType", receiptType)
        json.member("versionExternalIdentifier", versionExternalIdentifier)
        json.members(unknownFields)
        json.endObject()
    }
}

extension SignedAppTransaction: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        receiptType = try fields.string("receiptType")
        appAppleId = try fields.int64("appAppleId")
        bundleId = try fields.string("bundleId")
        applicationVersion = try fields.string("applicationVersion")
        versionExternalIdentifier = try fields.int64("versionExternalIdentifier")
        receiptCreationDate = try fields.date("receiptCreationDate")
        originalPurchaseDate = try fields.date("originalPurchaseDate")
        originalApplicationVersion = try fields.string("originalApplicationVersion")
        deviceVerification = try fields.string("deviceVerification")
        deviceVerificationNonce = try fields.string("deviceVerificationNonce")
        preorderDate = try fields.date("preorderDate")
        appTransactionId = try fields.string("appTransactionId")
        originalPlatform = try fields.value("originalPlatform")
        unknownFields = fields.unknownFields
    }
}

extension SignedAppTransaction {
    /// The instant certificates are judged at: ``receiptCreationDate`` (an app transaction has
    /// no `signedDate`).
    public var signedDate: Date? { receiptCreationDate }
    /// The environment: ``receiptType``.
    public var environment: String? { receiptType }
}
