/// Whether a subscription renews automatically (`autoRenewStatus`, `commitmentAutoRenewStatus`).
///
/// The wire value is a 32-bit integer. Values Apple documents have a constant; any other value is
/// kept as it was signed (`AutoRenewStatus(rawValue: 9)`), so data from a newer App Store still reads.
public struct AutoRenewStatus: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// It does not renew.
    public static let off = AutoRenewStatus(rawValue: 0)
    /// It renews.
    public static let on = AutoRenewStatus(rawValue: 1)

    /// The value as signed.
    public var description: String { String(rawValue) }

    public func write(to json: inout JSONWriter) { json.number(Int64(rawValue)) }
}
