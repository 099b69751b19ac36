/// The kind of subscription offer (`offerType`).
///
/// The wire value is a 32-bit integer. Values Apple documents have a constant; any other value is
/// kept as it was signed (`OfferType(rawValue: 9)`), so data from a newer App Store still reads.
public struct OfferType: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// An introductory offer.
    public static let introductoryOffer = OfferType(rawValue: 1)
    /// A promotional offer.
    public static let promotionalOffer = OfferType(rawValue: 2)
    /// An offer with a subscription offer code.
    public static let offerCode = OfferType(rawValue: 3)
    /// A win-back offer.
    public static let winBackOffer = OfferType(rawValue: 4)

    /// The value as signed.
    public var description: String { String(rawValue) }

    public func write(to json: inout JSONWriter) { json.number(Int64(rawValue)) }
}
