/// Whether the customer responded to a subscription price increase (`priceIncreaseStatus`).
///
/// The wire value is a 32-bit integer. Values Apple documents have a constant; any other value is
/// kept as it was signed (`PriceIncreaseStatus(rawValue: 9)`), so data from a newer App Store still reads.
public struct PriceIncreaseStatus: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The customer has not responded to a price increase that needs consent.
    public static let customerHasNotResponded = PriceIncreaseStatus(rawValue: 0)
    /// The customer consented, or was told of an increase that needs no consent.
    public static let customerConsentedOrWasNotifiedWithoutNeedingConsent = PriceIncreaseStatus(rawValue: 1)

    /// The value as signed.
    public var description: String { String(rawValue) }

    public func write(to json: inout JSONWriter) { json.number(Int64(rawValue)) }
}
