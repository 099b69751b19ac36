#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A notification's `appData`: the app and its app transaction token.
public struct NotificationAppData: Sendable, Hashable, Codable, JSONWritable {
    /// The App Store's identifier of the app.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// `Sandbox` or `Production`.
    public var environment: String?
    /// The app transaction, as a JWS of its own (see ``SignedAppTransaction``).
    public var signedAppTransactionInfo: String?
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
        json.member("signedAppTransactionInfo", signedAppTransactionInfo)
        json.members(unknownFields)
        json.endObject()
    }
}

extension NotificationAppData: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        appAppleId = try fields.int64("appAppleId")
        bundleId = try fields.string("bundleId")
        environment = try fields.string("environment")
        signedAppTransactionInfo = try fields.string("signedAppTransactionInfo")
        unknownFields = fields.unknownFields
    }
}
