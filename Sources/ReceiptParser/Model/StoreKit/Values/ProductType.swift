/// A transaction's product type (`type`).
///
/// The wire value is a string. Values Apple documents have a constant; any other value is kept
/// as it was signed (`ProductType(rawValue: "…")`), so data from a newer App Store still reads.
public struct ProductType: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// An auto-renewable subscription.
    public static let autoRenewableSubscription = ProductType(rawValue: "Auto-Renewable Subscription")
    /// A non-consumable in-app purchase.
    public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
    /// A consumable in-app purchase.
    public static let consumable = ProductType(rawValue: "Consumable")
    /// A non-renewing subscription.
    public static let nonRenewingSubscription = ProductType(rawValue: "Non-Renewing Subscription")

    /// The value as signed.
    public var description: String { rawValue }

    public func write(to json: inout JSONWriter) { json.string(rawValue) }
}
