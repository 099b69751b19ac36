/// An identifier (bundle, product or transaction id) that equals, hashes and sorts by its UTF-8
/// bytes.
///
/// Swift's `String` compares by canonical equivalence: `"café"` written with a precomposed `é`
/// equals `"cafe\u{301}"`, and the Kelvin sign `"\u{212A}"` equals `"K"`, so `==`, `Set<String>`
/// and `[String: X]` would treat a receipt's identifier as one it is not. Apple and the stores
/// compare identifiers as bytes; so does everything in this library that matches one.
///
/// ```swift
/// let served: Set<ExactIdentifier> = ["com.example.app"]
/// let accepted = receipt.bundleID.map { served.contains(ExactIdentifier($0)) } ?? false
/// ```
public struct ExactIdentifier: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The identifier as text, its bytes untouched.
    public let text: String

    /// Wraps `text`; no normalisation is applied.
    public init(_ text: String) { self.text = text }

    /// Wraps a literal. (A `StaticString`, so that `ExactIdentifier.init` names one initializer.)
    public init(stringLiteral literal: StaticString) { text = literal.description }

    /// The text itself.
    public var description: String { text }

    /// Equal when the UTF-8 bytes are.
    public static func == (lhs: ExactIdentifier, rhs: ExactIdentifier) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    /// Hashes the UTF-8 bytes as one block.
    public func hash(into hasher: inout Hasher) {
        var text = self.text  // withUTF8 may make a bridged string contiguous, so it is mutating
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Byte order, as `LC_ALL=C sort`: deterministic whatever the locale or normalisation.
    public static func < (lhs: ExactIdentifier, rhs: ExactIdentifier) -> Bool {
        lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
    }
}
