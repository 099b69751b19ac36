#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes JSON as UTF-8 straight into one growing buffer: no tree of values, no `JSONEncoder`,
/// no Foundation formatters. Every output of the tools goes through it.
///
/// Values are written in order; the writer places the commas, the layout and the escapes.
/// Strings are escaped as `JSONEncoder` escapes them (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
/// other C0 controls as `\u00XX`), and so are the invisible characters it leaves raw (DEL, C1
/// controls, bidirectional and other format characters, line separators: see
/// ``DisplayText``), so that JSON shown in a terminal or a log is inert. Dates are RFC 3339 in
/// UTC, with milliseconds when they have them, as ``RFC3339/string(from:)`` writes them.
///
/// ```swift
/// var json = JSONWriter(layout: .indented)
/// json.beginObject()
/// json.member("bundleID", receipt.bundleID)
/// json.member("creationDate", receipt.creationDate)
/// json.endObject()
/// let text = json.finishString()
/// ```
///
/// The writer checks nesting only in debug builds: a key outside an object, or an end without
/// its beginning, is a programming error. It is `Sendable` because it cannot be copied: its
/// buffer has one owner at a time.
public struct JSONWriter: ~Copyable, @unchecked Sendable {
    /// How the text is laid out.
    public enum Layout: Sendable {
        /// No whitespace at all: for programs, logs and the network.
        case compact
        /// Two spaces per level and `"key" : value`, exactly as `JSONEncoder`'s
        /// `.prettyPrinted` lays out text: for people.
        case indented
    }

    /// The layout chosen at creation.
    public let layout: Layout
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written so far.
    public private(set) var count = 0
    /// Containers open.
    private var depth = 0
    /// Whether the innermost open container has no element yet.
    private var isEmptyContainer = true
    /// Whether a key was just written, so the next value is its value, not an element.
    private var awaitsValue = false
    /// Levels of indentation every line after the first starts with.
    private let outerLevel: Int

    /// A writer for one document, with room for `capacity` bytes before it grows.
    ///
    /// - Parameter outerLevel: for a document that will stand inside another (an element of
    ///   an array of documents), the levels of indentation its lines need there; the text
    ///   then goes in as it is, without indenting it again.
    public init(layout: Layout = .compact, capacity: Int = 1024, outerLevel: Int = 0) {
        self.layout = layout
        self.outerLevel = outerLevel
        self.capacity = max(capacity, 64)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    // MARK: Structure

    /// Opens an object; its members follow as a `key(_:)` and a value each.
    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    /// Closes the innermost object.
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    /// Opens an array; its elements follow.
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    /// Closes the innermost array.
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Writes a member's key; the next value written is the member's value.
    ///
    /// A key given as a literal is the program's own, never input: it must be printable ASCII
    /// without `"` or `\` (checked in debug builds) and is written as it stands. Keys that
    /// come from data go through `key(_:)` with a `String`, escaped.
    public mutating func key(_ key: StaticString) {
        assert(depth > 0 && !awaitsValue, "JSONWriter: a key outside an object or after a key")
        assert(key.hasPointerRepresentation && Self.isPlain(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)),
               "JSONWriter: a literal key must be printable ASCII without quotes or backslashes")
        startElement()
        let count = key.utf8CodeUnitCount
        reserve(count + 2)
        put(UInt8(ascii: "\""))
        put(UnsafeBufferPointer(start: key.utf8Start, count: count))
        put(UInt8(ascii: "\""))
        separateKey()
    }

    /// Writes a member's key made of two plain ASCII parts (`purchase_date` and `_ms`).
    mutating func key(_ key: StaticString, suffix: StaticString) {
        assert(depth > 0 && !awaitsValue, "JSONWriter: a key outside an object or after a key")
        startElement()
        let (head, tail) = (UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount),
                            UnsafeBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount))
        assert(Self.isPlain(head) && Self.isPlain(tail))
        put(UInt8(ascii: "\""))
        put(head)
        put(tail)
        put(UInt8(ascii: "\""))
        separateKey()
    }

    /// Writes a member's key given at run time (escaped like any string).
    public mutating func key(_ key: String) {
        assert(depth > 0 && !awaitsValue, "JSONWriter: a key outside an object or after a key")
        startElement()
        writeString(key)
        separateKey()
    }

    // MARK: Values

    /// Writes a string.
    public mutating func string(_ value: String) {
        startElement()
        writeString(value)
    }

    /// Writes an integer.
    public mutating func number(_ value: Int64) {
        startElement()
        reserve(20)
        count += Self.decimal(value, into: storage + count)
    }

    /// Writes an integer.
    public mutating func number(_ value: Int) { number(Int64(value)) }

    /// Writes a number already in JSON's grammar (as ``StrictJSON`` keeps numbers), as it is.
    mutating func numberText(_ text: String) {
        startElement()
        var text = text
        text.withUTF8 { put($0) }
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        startElement()
        put(value ? "true" : "false")
    }

    /// Writes `null`.
    public mutating func null() {
        startElement()
        put("null")
    }

    /// Writes a date as an RFC 3339 string in UTC: `2024-05-01T12:00:00Z`, or with
    /// milliseconds (`.250`) when it has a fraction of a second.
    public mutating func date(_ value: Date) {
        asciiString(maximumCount: RFC3339.maximumUTF8Count) { RFC3339.write(value, into: $0) }
    }

    /// Writes bytes as a string of lowercase hexadecimal digits.
    public mutating func hex(_ bytes: ByteString) {
        bytes.storage.withUnsafeBufferPointer { hex($0) }
    }

    /// Writes bytes as a string of lowercase hexadecimal digits.
    mutating func hex(_ bytes: UnsafeBufferPointer<UInt8>) {
        asciiString(maximumCount: bytes.count * 2) { destination in
            for (offset, byte) in bytes.enumerated() {
                destination[2 * offset] = Self.hexDigits[Int(byte >> 4)]
                destination[2 * offset + 1] = Self.hexDigits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }

    /// Writes a value that knows how to write itself.
    public mutating func value(_ value: some JSONWritable) {
        value.write(to: &self)
    }

    /// Writes a string of at most `maximumCount` ASCII bytes that need no escape, produced by
    /// `body` straight into the buffer; `body` returns how many it wrote.
    mutating func asciiString(maximumCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        startElement()
        reserve(maximumCount + 2)
        put(UInt8(ascii: "\""))
        let written = body(storage + count)
        assert(written <= maximumCount && Self.isPlain(UnsafeBufferPointer(start: storage + count, count: written)))
        count += written
        put(UInt8(ascii: "\""))
    }

    // MARK: The text

    /// The text written, as bytes. Ends the writer.
    public consuming func finish() -> [UInt8] {
        assert(depth == 0, "JSONWriter: containers left open")
        return Array(UnsafeBufferPointer(start: storage, count: count))
    }

    /// The text written, as a string. Ends the writer.
    public consuming func finishString() -> String {
        assert(depth == 0, "JSONWriter: containers left open")
        // The writer only ever writes valid UTF-8: ASCII of its own and the bytes of Swift strings.
        return String(unsafeUninitializedCapacity: count) { destination in
            _ = destination.initialize(from: UnsafeBufferPointer(start: storage, count: count))
            return count
        }
    }

    /// Calls `body` with the text written so far.
    public borrowing func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    // MARK: Layout

    private mutating func open(_ bracket: UInt8) {
        startElement()
        put(bracket)
        depth += 1
        isEmptyContainer = true
    }

    private mutating func close(_ bracket: UInt8) {
        assert(depth > 0 && !awaitsValue, "JSONWriter: an end without its beginning, or after a key")
        depth -= 1
        if layout == .indented {
            // JSONEncoder leaves an empty line inside an empty container.
            newline(blankLineFirst: isEmptyContainer)
        }
        put(bracket)
        isEmptyContainer = false
    }

    /// Before every value and key: the comma and the line of an element, unless the value is
    /// a member's (its key did that).
    private mutating func startElement() {
        if awaitsValue {
            awaitsValue = false
            return
        }
        guard depth > 0 else { return }
        if !isEmptyContainer { put(UInt8(ascii: ",")) }
        isEmptyContainer = false
        if layout == .indented { newline(blankLineFirst: false) }
    }

    private mutating func separateKey() {
        if layout == .indented { put(" : ") } else { put(UInt8(ascii: ":")) }
        awaitsValue = true
    }

    private mutating func newline(blankLineFirst: Bool) {
        let spaces = 2 * (depth + outerLevel)
        reserve(spaces + 2)
        put(UInt8(ascii: "\n"))
        if blankLineFirst { put(UInt8(ascii: "\n")) }
        (storage + count).initialize(repeating: UInt8(ascii: " "), count: spaces)
        count += spaces
    }

    // MARK: Bytes

    /// Room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.initialize(from: storage, count: count)
        storage.deallocate()
        (storage, capacity) = (newStorage, newCapacity)
    }

    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (storage + count).initialize(from: base, count: bytes.count)
        count += bytes.count
    }

    private mutating func put(_ text: StaticString) {
        put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: Strings

    /// A string with its quotes and escapes. Runs of bytes that need no escape are copied
    /// whole; only the rest is looked at scalar by scalar.
    private mutating func writeString(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            reserve(utf8.count + 2)
            put(UInt8(ascii: "\""))
            var start = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                if byte >= 0x80 {
                    // A multi-byte scalar: kept unless it is invisible.
                    let (scalar, length) = Self.scalar(in: utf8, at: index)
                    if !DisplayText.isInvisible(scalar) {
                        index += length
                        continue
                    }
                    put(UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    writeEscape(scalar)
                    index += length
                } else {
                    put(UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    writeEscape(Unicode.Scalar(byte))
                    index += 1
                }
                start = index
            }
            put(UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
            put(UInt8(ascii: "\""))
        }
    }

    private mutating func writeEscape(_ scalar: Unicode.Scalar) {
        switch scalar {
        case "\"": put("\\\"")
        case "\\": put("\\\\")
        case "\u{8}": put("\\b")
        case "\u{C}": put("\\f")
        case "\n": put("\\n")
        case "\r": put("\\r")
        case "\t": put("\\t")
        default:
            // `\uXXXX`, a surrogate pair past U+FFFF: the same value, readable by every JSON reader.
            if scalar.value < 0x10000 {
                writeUnicodeEscape(scalar.value)
            } else {
                let offset = scalar.value - 0x10000
                writeUnicodeEscape(0xD800 + (offset >> 10))
                writeUnicodeEscape(0xDC00 + (offset & 0x3FF))
            }
        }
    }

    private mutating func writeUnicodeEscape(_ unit: UInt32) {
        reserve(6)
        put("\\u")
        for shift in stride(from: 12, through: 0, by: -4) {
            put(Self.hexDigits[Int((unit >> UInt32(shift)) & 0xF)])
        }
    }

    /// The scalar that starts at `index` of valid UTF-8, and its length in bytes.
    @inline(__always)
    private static func scalar(in utf8: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int) {
        let lead = UInt32(utf8[index])
        func continuation(_ offset: Int) -> UInt32 { UInt32(utf8[index + offset]) & 0x3F }
        let (value, length): (UInt32, Int) = switch lead {
        case 0xF0...: ((lead & 0x07) << 18 | continuation(1) << 12 | continuation(2) << 6 | continuation(3), 4)
        case 0xE0...: ((lead & 0x0F) << 12 | continuation(1) << 6 | continuation(2), 3)
        default: ((lead & 0x1F) << 6 | continuation(1), 2)
        }
        return (Unicode.Scalar(value)!, length)
    }

    /// Whether `bytes` can stand in a JSON string as they are, for display too: printable
    /// ASCII other than the quote and the backslash.
    static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    // MARK: Digits

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `value` in decimal at `destination` (at most 20 bytes); returns the length.
    static func decimal(_ value: Int64, into destination: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // room for 20 digits, written from the end
        return withUnsafeMutableBytes(of: &digits) { scratch in
            var position = scratch.count
            repeat {
                position -= 1
                scratch[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            var length = 0
            if value < 0 {
                destination[0] = UInt8(ascii: "-")
                length = 1
            }
            let digitCount = scratch.count - position
            (destination + length).initialize(from: scratch.baseAddress!.assumingMemoryBound(to: UInt8.self) + position, count: digitCount)
            return length + digitCount
        }
    }
}
