#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A notification's `data`: the app, the environment, and the nested transaction and renewal
/// info tokens (Apple's Data).
public struct NotificationData: Sendable, Hashable, Codable, JSONWritable {
    /// The App Store's identifier of the app.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app's build version.
    public var bundleVersion: String?
    /// Why the customer asked for a refund of a consumable.
    public var consumptionRequestReason: ConsumptionRequestReason?
    /// `Sandbox` or `Production`.
    public var environment: String?
    /// The renewal info, as a JWS of its own (see ``SignedRenewalInfo``).
    public var signedRenewalInfo: String?
    /// The transaction, as a JWS of its own (see ``SignedTransaction``).
    public var signedTransactionInfo: String?
    /// The subscription's status.
    public var status: SubscriptionStatus?
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
        json.member("bundleVersion", bundleVersion)
        json.member("consumptionRequestReason", consumptionRequestReason)
        json.member("environment", environment)
        json.member("signedRenewalInfo", signedRenewalInfo)
        json.member("signedTransactionInfo", signedTransactionInfo)
        json.member("status", status)
        json.members(unknownFields)
        json.endObject()
    }
}

extension NotificationData: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        environment = try fields.string("environment")
        appAppleId = try fields.int64("appAppleId")
        bundleId = try fields.string("bundleId")
        bundleVersion = try fields.string("bundleVersion")
        signedTransactionInfo = try fields.string("signedTransactionInfo")
        signedRenewalInfo = try fields.string("signedRenewalInfo")
        status = try fields.value("status")
        consumptionRequestReason = try fields.value("consumptionRequestReason")
        unknownFields = fields.unknownFields
    }
}
