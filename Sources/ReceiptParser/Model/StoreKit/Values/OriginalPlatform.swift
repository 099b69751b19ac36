/// The platform the customer first bought the app on (`originalPlatform`).
///
/// The wire value is a string. Values Apple documents have a constant; any other value is kept
/// as it was signed (`OriginalPlatform(rawValue: "…")`), so data from a newer App Store still reads.
public struct OriginalPlatform: RawRepresentable, Sendable, Hashable, Codable, JSONWritable, CustomStringConvertible {
    /// The value as signed.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// iOS, iPadOS.
    public static let iOS = OriginalPlatform(rawValue: "iOS")
    /// macOS.
    public static let macOS = OriginalPlatform(rawValue: "macOS")
    /// tvOS.
    public static let tvOS = OriginalPlatform(rawValue: "tvOS")
    /// visionOS.
    public static let visionOS = OriginalPlatform(rawValue: "visionOS")

    /// The value as signed.
    public var description: String { rawValue }

    public func write(to json: inout JSONWriter) { json.string(rawValue) }
}
