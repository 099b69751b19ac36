#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Object members in one call each. An absent (nil) value writes nothing, as `Codable`'s
/// `encodeIfPresent` leaves the key out.
extension JSONWriter {
    /// Writes `key` and the string, if there is one.
    public mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    /// Writes `key` and a date, if there is one, as StoreKit dates are written: RFC 3339 in UTC,
    /// always with milliseconds (`2025-06-01T12:00:00.000Z`).
    public mutating func member(_ key: StaticString, milliseconds value: Date?) {
        guard let value else { return }
        self.key(key)
        asciiString(maximumCount: RFC3339.maximumUTF8Count) { RFC3339.write(value, alwaysMilliseconds: true, into: $0) }
    }

    /// Writes `key` and the integer, if there is one.
    public mutating func member(_ key: StaticString, _ value: Int64?) {
        guard let value else { return }
        self.key(key)
        number(value)
    }

    /// Writes `key` and the integer, if there is one.
    public mutating func member(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        self.key(key)
        number(value)
    }

    /// Writes `key` and `true` or `false`, if there is one.
    public mutating func member(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        bool(value)
    }

    /// Writes `key` and the date as RFC 3339, if there is one.
    public mutating func member(_ key: StaticString, _ value: Date?) {
        guard let value else { return }
        self.key(key)
        date(value)
    }

    /// Writes `key` and the bytes as hexadecimal, if there are any.
    public mutating func member(_ key: StaticString, _ value: ByteString?) {
        guard let value else { return }
        self.key(key)
        hex(value)
    }

    /// Writes `key` and the value, if there is one.
    public mutating func member(_ key: StaticString, _ value: (some JSONWritable)?) {
        guard let value else { return }
        self.key(key)
        value.write(to: &self)
    }
}
