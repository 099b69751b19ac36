/// How a subscription with a commitment is billed (`billingPlanType`, `renewalBillingPlanType`).
///
/// The wire value is a string. Values Apple documents have a constant; any other value is kept
/// as it was signed (`BillingPlanType(rawValue: "…")`), so data from a newer App Store still reads.
public struct BillingPlanType: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// The whole commitment is billed up front.
    public static let billedUpfront = BillingPlanType(rawValue: "BILLED_UPFRONT")
    /// Billed monthly over a twelve-month commitment.
    public static let monthly = BillingPlanType(rawValue: "MONTHLY")

    /// The value as signed.
    public var description: String { rawValue }

    public func write(to json: inout JSONWriter) { json.string(rawValue) }
}
