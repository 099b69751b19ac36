/// Whether the customer bought the product or has it through Family Sharing (`inAppOwnershipType`).
///
/// The wire value is a string. Values Apple documents have a constant; any other value is kept
/// as it was signed (`InAppOwnershipType(rawValue: "…")`), so data from a newer App Store still reads.
public struct InAppOwnershipType: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// Shared with the customer through Family Sharing.
    public static let familyShared = InAppOwnershipType(rawValue: "FAMILY_SHARED")
    /// Bought by the customer.
    public static let purchased = InAppOwnershipType(rawValue: "PURCHASED")

    /// The value as signed.
    public var description: String { rawValue }

    public func write(to json: inout JSONWriter) { json.string(rawValue) }
}
