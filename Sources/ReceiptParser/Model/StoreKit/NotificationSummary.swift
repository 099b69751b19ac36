#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A notification's `summary`: the outcome of a request to extend subscription renewal dates
/// (`RENEWAL_EXTENSION` with subtype `SUMMARY`).
public struct NotificationSummary: Sendable, Hashable, Codable, JSONWritable {
    /// The App Store's identifier of the app.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// `Sandbox` or `Production`.
    public var environment: String?
    /// How many subscriptions could not be extended.
    public var failedCount: Int64?
    /// The product whose subscriptions were extended.
    public var productId: String?
    /// The identifier of the extension request.
    public var requestIdentifier: String?
    /// The storefronts (ISO 3166-1 alpha-3) the request covered.
    public var storefrontCountryCodes: [String]?
    /// How many subscriptions were extended.
    public var succeededCount: Int64?
    /// The members this library does not know, in the order signed; written back after the
    /// known ones, so nothing Apple sends is lost.
    public var unknownFields: [StrictJSON.Member] = []

    /// An empty value, every field absent.
    public init() {}

    /// Reads the object as Apple signs it: ``ReceiptError/Code/wrongValueType`` names a documented
    /// field of another JSON type; `null` counts as absent; other members are kept.
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
        json.member("bundleId", bundleId)
        json.member("environment", environment)
        json.member("failedCount", failedCount)
        json.member("productId", productId)
        json.member("requestIdentifier", requestIdentifier)
        json.member("storefrontCountryCodes", storefrontCountryCodes)
        json.member("succeededCount", succeededCount)
        json.members(unknownFields)
        json.endObject()
    }
}

extension NotificationSummary: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        environment = try fields.string("environment")
        appAppleId = try fields.int64("appAppleId")
        bundleId = try fields.string("bundleId")
        productId = try fields.string("productId")
        requestIdentifier = try fields.string("requestIdentifier")
        storefrontCountryCodes = try fields.strings("storefrontCountryCodes")
        succeededCount = try fields.int64("succeededCount")
        failedCount = try fields.int64("failedCount")
        unknownFields = fields.unknownFields
    }
}
