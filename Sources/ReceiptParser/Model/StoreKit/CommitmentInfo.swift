#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transaction's `commitmentInfo`: where a subscription with a twelve-month commitment
/// billed monthly stands.
public struct CommitmentInfo: Sendable, Hashable, Codable, JSONWritable {
    /// Which billing period of the commitment this is.
    public var billingPeriodNumber: Int32?
    /// When the commitment ends.
    public var commitmentExpiresDate: Date?
    /// The price of the whole commitment, in milliunits.
    public var commitmentPrice: Int64?
    /// How many billing periods the commitment has.
    public var totalBillingPeriods: Int32?
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
        json.member("billingPeriodNumber", billingPeriodNumber)
        json.member("commitmentExpiresDate", milliseconds: commitmentExpiresDate)
        json.member("commitmentPrice", commitmentPrice)
        json.member("totalBillingPeriods", totalBillingPeriods)
        json.members(unknownFields)
        json.endObject()
    }
}

extension CommitmentInfo: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        billingPeriodNumber = try fields.int32("billingPeriodNumber")
        commitmentExpiresDate = try fields.date("commitmentExpiresDate")
        commitmentPrice = try fields.int64("commitmentPrice")
        totalBillingPeriods = try fields.int32("totalBillingPeriods")
        unknownFields = fields.unknownFields
    }
}
