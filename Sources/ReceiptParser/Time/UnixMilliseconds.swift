#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// StoreKit 2's instants: milliseconds since 1970, written as a JSON number (Xcode adds a
/// fraction of a millisecond). Only the years 0000 to 9999 are read, as ``RFC3339`` reads,
/// so that every instant a token claims can be written back and shown.
package enum UnixMilliseconds {
    /// 0000-01-01T00:00:00Z through 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    package static let readable: ClosedRange<Double> = -62_167_219_200_000 ... 253_402_300_799_999

    /// The instant `text` (a JSON number's text) names, or nil when it is not a number or
    /// falls outside ``readable``.
    package static func date(from text: String) -> Date? {
        guard let milliseconds = Double(text), readable.contains(milliseconds) else { return nil }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }
}
