/// A subscription's status in a notification's `data.status`.
///
/// The wire value is a 32-bit integer. Values Apple documents have a constant; any other value is
/// kept as it was signed (`SubscriptionStatus(rawValue: 9)`), so data from a newer App Store still reads.
public struct SubscriptionStatus: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Active.
    public static let active = SubscriptionStatus(rawValue: 1)
    /// Expired.
    public static let expired = SubscriptionStatus(rawValue: 2)
    /// In the billing retry period.
    public static let billingRetry = SubscriptionStatus(rawValue: 3)
    /// In the billing grace period.
    public static let billingGracePeriod = SubscriptionStatus(rawValue: 4)
    /// Revoked.
    public static let revoked = SubscriptionStatus(rawValue: 5)

    /// The value as signed.
    public var description: String { String(rawValue) }

    public func write(to json: inout JSONWriter) { json.number(Int64(rawValue)) }
}
