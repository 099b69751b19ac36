#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Renewal info's `commitmentInfo`: how a subscription commitment renews.
public struct RenewalCommitmentInfo: Sendable, Hashable, Codable, JSONWritable {
    /// The product the commitment renews to.
    public var commitmentAutoRenewProductId: String?
    /// Whether the commitment renews.
    public var commitmentAutoRenewStatus: AutoRenewStatus?
    /// How the renewed commitment is billed.
    public var commitmentRenewalBillingPlanType: BillingPlanType?
    /// When the commitment renews.
    public var commitmentRenewalDate: Date?
    /// The renewed commitment's price, in milliunits.
    public var commitmentRenewalPrice: Int64?
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
        json.member("commitmentAutoRenewProductId", commitmentAutoRenewProductId)
        json.member("commitmentAutoRenewStatus", commitmentAutoRenewStatus)
        json.member("commitmentRenewalBillingPlanType", commitmentRenewalBillingPlanType)
        json.member("commitmentRenewalDate", milliseconds: commitmentRenewalDate)
        json.member("commitmentRenewalPrice", commitmentRenewalPrice)
        json.members(unknownFields)
        json.endObject()
    }
}

extension RenewalCommitmentInfo: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        commitmentAutoRenewProductId = try fields.string("commitmentAutoRenewProductId")
        commitmentAutoRenewStatus = try fields.value("commitmentAutoRenewStatus")
        commitmentRenewalBillingPlanType = try fields.value("commitmentRenewalBillingPlanType")
        commitmentRenewalDate = try fields.date("commitmentRenewalDate")
        commitmentRenewalPrice = try fields.int64("commitmentRenewalPrice")
        unknownFields = fields.unknownFields
    }
}
