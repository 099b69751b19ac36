#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes taken from a receipt, indexed from zero, encoded as lowercase hex in JSON.
///
/// A `ByteString` shares the storage of the decoded payload instead of copying, so keeping every
/// raw attribute costs no allocation per attribute.
public struct ByteString: RandomAccessCollection, Sendable, Hashable, Codable, CustomStringConvertible {
    @usableFromInline let storage: ArraySlice<UInt8>

    /// Wraps bytes; a slice keeps sharing its array's storage.
    public init(_ bytes: ArraySlice<UInt8>) { storage = bytes }
    /// Wraps bytes.
    public init(_ bytes: [UInt8]) { storage = bytes[...] }

    /// Always 0, whatever part of the payload the bytes come from.
    public var startIndex: Int { 0 }
    /// The number of bytes.
    public var endIndex: Int { storage.count }
    /// The byte at `position`, counted from 0.
    @inlinable public subscript(position: Int) -> UInt8 { storage[storage.startIndex + position] }

    /// The bytes as lowercase hexadecimal.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(storage.count * 2)
        for byte in storage {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes as lowercase hexadecimal, as in JSON.
    public var description: String { hex }

    // Compared with memcmp and hashed as one block: certificates and attribute sets are
    // compared often, and byte-by-byte element comparison costs a call per byte.
    public static func == (lhs: ByteString, rhs: ByteString) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.storage.withUnsafeBytes { a in
            rhs.storage.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    public func hash(into hasher: inout Hasher) {
        storage.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let bytes = ByteString(hex: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an even number of hexadecimal digits")
        }
        self = bytes
    }

    /// The bytes spelt by `text` in hexadecimal (upper or lower case, two digits a byte), or nil
    /// when it is anything else.
    public init?(hex text: some StringProtocol) {
        let digits = Array(text.utf8)
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        storage = bytes[...]
    }
}
