/// How a subscription offer is paid (`offerDiscountType`).
///
/// The wire value is a string. Values Apple documents have a constant; any other value is kept
/// as it was signed (`OfferDiscountType(rawValue: "…")`), so data from a newer App Store still reads.
public struct OfferDiscountType: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// A free trial.
    public static let freeTrial = OfferDiscountType(rawValue: "FREE_TRIAL")
    /// A discounted price each period.
    public static let payAsYouGo = OfferDiscountType(rawValue: "PAY_AS_YOU_GO")
    /// A discounted price paid once, up front.
    public static let payUpFront = OfferDiscountType(rawValue: "PAY_UP_FRONT")
    /// A one-time discount.
    public static let oneTime = OfferDiscountType(rawValue: "ONE_TIME")

    /// The value as signed.
    public var description: String { rawValue }

    public func write(to json: inout JSONWriter) { json.string(rawValue) }
}
