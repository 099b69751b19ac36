/// Why a transaction happened (`transactionReason`).
///
/// The wire value is a string. Values Apple documents have a constant; any other value is kept
/// as it was signed (`TransactionReason(rawValue: "…")`), so data from a newer App Store still reads.
public struct TransactionReason: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// The customer bought the product (or upgraded, or a family member got access).
    public static let purchase = TransactionReason(rawValue: "PURCHASE")
    /// The App Store renewed an auto-renewable subscription.
    public static let renewal = TransactionReason(rawValue: "RENEWAL")

    /// The value as signed.
    public var description: String { rawValue }

    public func write(to json: inout JSONWriter) { json.string(rawValue) }
}
