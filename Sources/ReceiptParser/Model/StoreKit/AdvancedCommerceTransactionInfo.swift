#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transaction's `advancedCommerceInfo`: a purchase made with the Advanced Commerce API.
/// Its descriptors and items are kept as signed (objects whose members Apple documents loosely).
public struct AdvancedCommerceTransactionInfo: Sendable, Hashable, Codable, JSONWritable {
    /// The display name and description of the purchase, as signed.
    public var descriptors: StrictJSON.Value?
    /// The estimated tax, in milliunits.
    public var estimatedTax: Int64?
    /// The items bought, as signed.
    public var items: [StrictJSON.Value]?
    /// The subscription period, ISO 8601 (`P1M`).
    public var period: String?
    /// The identifier of the purchase request.
    public var requestReferenceId: String?
    /// The tax code of the purchase.
    public var taxCode: String?
    /// The price before tax, in milliunits.
    public var taxExclusivePrice: Int64?
    /// The tax rate, as a decimal string.
    public var taxRate: String?
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
        json.member("descriptors", descriptors)
        json.member("estimatedTax", estimatedTax)
        json.member("items", items)
        json.member("period", period)
        json.member("requestReferenceId", requestReferenceId)
        json.member("taxCode", taxCode)
        json.member("taxExclusivePrice", taxExclusivePrice)
        json.member("taxRate", taxRate)
        json.members(unknownFields)
        json.endObject()
    }
}

extension AdvancedCommerceTransactionInfo: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        descriptors = try fields.rawObject("descriptors")
        estimatedTax = try fields.int64("estimatedTax")
        items = try fields.rawObjects("items")
        period = try fields.string("period")
        requestReferenceId = try fields.string("requestReferenceId")
        taxCode = try fields.string("taxCode")
        taxExclusivePrice = try fields.int64("taxExclusivePrice")
        taxRate = try fields.string("taxRate")
        unknownFields = fields.unknownFields
    }
}
