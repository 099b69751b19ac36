/// Why a subscription expired (`expirationIntent`).
///
/// The wire value is a 32-bit integer. Values Apple documents have a constant; any other value is
/// kept as it was signed (`ExpirationIntent(rawValue: 9)`), so data from a newer App Store still reads.
public struct ExpirationIntent: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The customer cancelled.
    public static let customerCancelled = ExpirationIntent(rawValue: 1)
    /// A billing error.
    public static let billingError = ExpirationIntent(rawValue: 2)
    /// The customer did not consent to a price increase.
    public static let customerDidNotConsentToPriceIncrease = ExpirationIntent(rawValue: 3)
    /// The product was not available for purchase at renewal.
    public static let productNotAvailable = ExpirationIntent(rawValue: 4)
    /// Another reason.
    public static let other = ExpirationIntent(rawValue: 5)

    /// The value as signed.
    public var description: String { String(rawValue) }

    public func write(to json: inout JSONWriter) { json.number(Int64(rawValue)) }
}
