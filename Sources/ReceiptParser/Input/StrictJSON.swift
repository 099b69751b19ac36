#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A strict RFC 8259 JSON reader for bytes an attacker may have written.
///
/// Foundation's readers keep one of two members with the same key, and do not agree on which,
/// so two parts of one server could read two different receipts from one body. This reader
/// refuses such a body instead, and refuses everything else RFC 8259 does not allow: invalid
/// UTF-8, lone surrogates in `\u` escapes, control characters in strings, leading zeros,
/// trailing bytes. Nesting is capped at ``DecodingLimits/maximumJSONDepth``, which also bounds
/// the recursion of the reader itself.
///
/// ```swift
/// let value = try StrictJSON.parse(Array(#"{"a": [1, true, null]}"#.utf8))
/// value["a"]  // .array([.number("1"), .bool(true), .null])
/// ```
public enum StrictJSON {
    /// Reads one JSON value (any type, surrounded by optional whitespace) from `bytes`.
    ///
    /// Throws ``ReceiptError/Code/duplicateKey`` when an object names a key twice (keys are
    /// compared byte for byte after unescaping, so `"a"` and `"\u0061"` are the same key),
    /// ``ReceiptError/Code/tooLarge`` past the input limit, and ``ReceiptError/Code/invalidJSON``
    /// for anything else that is not JSON or nests deeper than `maximumDepth` (by default
    /// ``DecodingLimits/maximumJSONDepth``).
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = DecodingLimits.maximumJSONDepth) throws(ReceiptError) -> Value {
        try parse(bytes, maximumDepth: maximumDepth, knownKeys: nil)
    }

    /// Reads one JSON value; a key spelt like one of `knownKeys` is that String, not a new one.
    static func parse(_ bytes: [UInt8], maximumDepth: Int = DecodingLimits.maximumJSONDepth,
                      knownKeys: KnownKeys?) throws(ReceiptError) -> Value {
        // The same bound as ReceiptInput: base64 of the largest receipt, with room for wrapping.
        guard bytes.count <= DecodingLimits.maximumInputSize * 3 / 2 else {
            throw ReceiptError(.tooLarge, "\(bytes.count) bytes of JSON exceed the limit")
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(ReceiptError) in
            var reader = Reader(buffer, maximumDepth: maximumDepth, knownKeys: knownKeys)
            reader.skipWhitespace()
            let value = try reader.readValue(depth: 0)
            reader.skipWhitespace()
            guard reader.position == buffer.count else {
                throw reader.invalid("bytes after the end of the JSON value")
            }
            return value
        }
    }

    /// A cursor over the bytes. Every `read` function starts at the first byte of its
    /// production and leaves `position` just past it.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let maximumDepth: Int
        let knownKeys: KnownKeys?
        var position = 0
        /// The members of the objects being read, innermost last.
        private var memberStack: [PendingMember] = []
        /// The elements of the arrays being read, innermost last.
        private var elementStack: [Value] = []

        init(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, knownKeys: KnownKeys?) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
            self.knownKeys = knownKeys
            memberStack.reserveCapacity(64)
        }

        /// At most 64 bytes of a key in a message: enough to recognise it, short enough to read.
        static let quotedKeyLimit = 64

        func invalid(_ what: String) -> ReceiptError {
            ReceiptError(.invalidJSON, "invalid JSON at byte \(position): \(what)")
        }

        var atEnd: Bool { position >= bytes.count }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        /// `depth` counts the arrays and objects around the value.
        mutating func readValue(depth: Int) throws(ReceiptError) -> Value {
            guard !atEnd else { throw invalid("a value was expected, the input ended") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
            case UInt8(ascii: "["): return try readArray(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try readStringValue())
            case UInt8(ascii: "t"): try readLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try readLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try readLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
            default: throw invalid("a value was expected, found \(describe(bytes[position]))")
            }
        }

        private func checkDepth(_ depth: Int) throws(ReceiptError) {
            guard depth <= maximumDepth else {
                throw invalid("arrays and objects nest deeper than \(maximumDepth) levels")
            }
        }

        private mutating func readObject(depth: Int) throws(ReceiptError) -> Value {
            try checkDepth(depth)
            position += 1  // {
            // Members collect on one stack shared by every object of the parse and are copied
            // out at the end, once, at their exact count: one allocation per object.
            let base = memberStack.count
            defer { memberStack.removeSubrange(base...) }
            var keys = DuplicateKeyCheck()
            skipWhitespace()
            if !atEnd, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object([])
            }
            while true {
                guard !atEnd, bytes[position] == UInt8(ascii: "\"") else { throw invalid("a quoted key was expected") }
                let keyStart = position
                let key = try readStringValue(knownKeys: knownKeys)
                let fingerprint = DuplicateKeyCheck.fingerprint(key)
                guard keys.insert(key, fingerprint: fingerprint, among: memberStack[base...]) else {
                    position = keyStart
                    throw ReceiptError(.duplicateKey, "the key \(Self.quote(Array(key.utf8))) occurs twice in one object (at byte \(keyStart))")
                }
                skipWhitespace()
                guard !atEnd, bytes[position] == UInt8(ascii: ":") else { throw invalid("\":\" was expected after a key") }
                position += 1
                skipWhitespace()
                let value = try readValue(depth: depth)
                memberStack.append(PendingMember(key: key, value: value, fingerprint: fingerprint))
                skipWhitespace()
                guard !atEnd else { throw invalid("the input ended inside an object") }
                switch bytes[position] {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhitespace()
                case UInt8(ascii: "}"):
                    position += 1
                    return .object(memberStack[base...].map { ($0.key, $0.value) })
                default:
                    throw invalid("\",\" or \"}\" was expected, found \(describe(bytes[position]))")
                }
            }
        }

        private mutating func readArray(depth: Int) throws(ReceiptError) -> Value {
            try checkDepth(depth)
            position += 1  // [
            let base = elementStack.count
            defer { elementStack.removeSubrange(base...) }
            skipWhitespace()
            if !atEnd, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array([])
            }
            while true {
                elementStack.append(try readValue(depth: depth))
                skipWhitespace()
                guard !atEnd else { throw invalid("the input ended inside an array") }
                switch bytes[position] {
                case UInt8(ascii: ","):
                    position += 1
                    skipWhitespace()
                case UInt8(ascii: "]"):
                    position += 1
                    return .array(Array(elementStack[base...]))
                default:
                    throw invalid("\",\" or \"]\" was expected, found \(describe(bytes[position]))")
                }
            }
        }

        private mutating func readLiteral(_ word: StaticString) throws(ReceiptError) {
            let count = word.utf8CodeUnitCount
            guard bytes.count - position >= count else { throw invalid("a value was expected") }
            for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] {
                throw invalid("a value was expected")
            }
            position += count
        }

        /// The number's text, after checking it against RFC 8259's grammar.
        private mutating func readNumber() throws(ReceiptError) -> String {
            let start = position
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard !atEnd, isDigit(bytes[position]) else { throw invalid("a digit was expected in a number") }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
                if !atEnd, isDigit(bytes[position]) { throw invalid("a number has a leading zero") }
            } else {
                skipDigits()
            }
            if !atEnd, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard !atEnd, isDigit(bytes[position]) else { throw invalid("a digit was expected after \".\"") }
                skipDigits()
            }
            if !atEnd, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if !atEnd, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard !atEnd, isDigit(bytes[position]) else { throw invalid("a digit was expected in an exponent") }
                skipDigits()
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

        private mutating func skipDigits() {
            while !atEnd, isDigit(bytes[position]) { position += 1 }
        }

        /// A string value. Printable ASCII without escapes (all of a base64 receipt) becomes a
        /// String straight from the input, with one copy.
        private mutating func readStringValue(knownKeys: KnownKeys? = nil) throws(ReceiptError) -> String {
            let start = position + 1
            let end = plainASCIIEnd(from: start)
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                position = end + 1
                let text = UnsafeBufferPointer(rebasing: bytes[start..<end])
                return knownKeys?.key(spelt: text) ?? String(decoding: text, as: UTF8.self)
            }
            return String(decoding: try readString(), as: UTF8.self)
        }

        /// Where the run of plain ASCII (``isPlainASCII(_:)``) that starts at `start` ends. Eight
        /// bytes at a time: a base64 receipt is kilobytes of it, read on every request.
        private func plainASCIIEnd(from start: Int) -> Int {
            var index = start
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            /// Whether some byte of `word` is zero.
            func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
                // A byte ≥ 0x80, or < 0x20 (adding 0x60 carries into its high bit only from
                // 0xA0 up, so test the bytes below 0x80 alone), or a quote, or a backslash.
                let low = word & ~highs
                let special = word & highs != 0
                    || (low &+ 0x6060_6060_6060_6060) & highs != highs
                    || hasZeroByte(word ^ (0x22 &* ones)) || hasZeroByte(word ^ (0x5C &* ones))
                if special { break }
                index += 8
            }
            while index < bytes.count, Self.isPlainASCII(bytes[index]) { index += 1 }
            return index
        }

        /// Printable ASCII other than the quote and the backslash: copied as it is.
        @inline(__always)
        private static func isPlainASCII(_ byte: UInt8) -> Bool {
            byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
        }

        /// A string's UTF-8 bytes with escapes undone; invalid UTF-8, control characters and
        /// lone surrogates are refused, so the bytes are always valid UTF-8.
        mutating func readString() throws(ReceiptError) -> [UInt8] {
            position += 1  // "
            // Fast path: printable ASCII up to the closing quote (all of a base64 receipt).
            let start = position
            position = plainASCIIEnd(from: position)
            var output = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while true {
                guard !atEnd else { throw invalid("the input ended inside a string") }
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return output
                case UInt8(ascii: "\\"):
                    try readEscape(into: &output)
                case 0..<0x20:
                    throw invalid("a control character (0x\(String(byte, radix: 16))) inside a string must be escaped")
                case 0x20..<0x80:
                    output.append(byte)
                    position += 1
                default:
                    try readMultibyteCharacter(into: &output)
                }
            }
        }

        private mutating func readEscape(into output: inout [UInt8]) throws(ReceiptError) {
            position += 1  // backslash
            guard !atEnd else { throw invalid("the input ended inside an escape") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try readHexQuad()
                if (0xDC00...0xDFFF).contains(scalar) { throw invalid("a low surrogate without a high surrogate before it") }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw invalid("a high surrogate without a low surrogate after it")
                    }
                    position += 2
                    let low = try readHexQuad()
                    guard (0xDC00...0xDFFF).contains(low) else { throw invalid("a high surrogate without a low surrogate after it") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                Self.appendUTF8(scalar, to: &output)
            default:
                position -= 1
                throw invalid("\\\(describe(byte)) is not a JSON escape")
            }
        }

        private mutating func readHexQuad() throws(ReceiptError) -> UInt32 {
            guard bytes.count - position >= 4 else { throw invalid("four hex digits were expected after \\u") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw invalid("four hex digits were expected after \\u")
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        private static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
            switch scalar {
            case ..<0x80:
                output.append(UInt8(scalar))
            case ..<0x800:
                output.append(UInt8(0xC0 | scalar >> 6))
                output.append(UInt8(0x80 | scalar & 0x3F))
            case ..<0x10000:
                output.append(UInt8(0xE0 | scalar >> 12))
                output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                output.append(UInt8(0x80 | scalar & 0x3F))
            default:
                output.append(UInt8(0xF0 | scalar >> 18))
                output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
                output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                output.append(UInt8(0x80 | scalar & 0x3F))
            }
        }

        /// Copies one well-formed UTF-8 sequence of 2 to 4 bytes (Unicode table 3-7: no
        /// overlong forms, no surrogates, nothing past U+10FFFF).
        private mutating func readMultibyteCharacter(into output: inout [UInt8]) throws(ReceiptError) {
            let lead = bytes[position]
            let count: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: count = 2
            case 0xE0: count = 3; secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: count = 3
            case 0xED: count = 3; secondRange = 0x80...0x9F
            case 0xF0: count = 4; secondRange = 0x90...0xBF
            case 0xF1...0xF3: count = 4
            case 0xF4: count = 4; secondRange = 0x80...0x8F
            default: throw invalid("invalid UTF-8 (byte 0x\(String(lead, radix: 16)))")
            }
            guard bytes.count - position >= count, secondRange.contains(bytes[position + 1]) else {
                throw invalid("invalid UTF-8 (byte 0x\(String(lead, radix: 16)) starts no valid sequence)")
            }
            for offset in 2..<count where !(0x80...0xBF).contains(bytes[position + offset]) {
                throw invalid("invalid UTF-8 (byte 0x\(String(lead, radix: 16)) starts no valid sequence)")
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<position + count]))
            position += count
        }

        private func describe(_ byte: UInt8) -> String {
            (0x21..<0x7F).contains(byte) ? "\"\(Character(Unicode.Scalar(byte)))\"" : "byte 0x\(String(byte, radix: 16))"
        }

        /// The key in quotes, cut to ``quotedKeyLimit`` bytes (at a character boundary).
        static func quote(_ key: [UInt8]) -> String {
            guard key.count > quotedKeyLimit else { return "\"\(String(decoding: key, as: UTF8.self))\"" }
            var end = quotedKeyLimit
            while end > 0, key[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a character
            return "\"\(String(decoding: key[..<end], as: UTF8.self))…\" (\(key.count) bytes)"
        }
    }

    /// A member read, waiting for its object to end.
    private struct PendingMember {
        let key: String
        let value: Value
        /// ``DuplicateKeyCheck/fingerprint(_:)`` of the key.
        let fingerprint: UInt64
    }

    /// Finds a repeated key in one object, comparing keys as bytes (String equality would merge
    /// canonically equivalent keys that other readers keep apart). Objects of up to 64 members,
    /// the usual case (a transaction has 34), are searched linearly in the members already read,
    /// comparing a key's bytes only when its length and outer bytes match; larger ones are hashed,
    /// so a body of many keys stays linear.
    private struct DuplicateKeyCheck {
        private var hashed: Set<[UInt8]> = []
        private static let linearLimit = 64

        /// The length and the first and last bytes: equal for equal keys.
        static func fingerprint(_ key: String) -> UInt64 {
            let utf8 = key.utf8
            guard let first = utf8.first, let last = utf8.last else { return 0 }
            return UInt64(truncatingIfNeeded: utf8.count) << 16 | UInt64(first) << 8 | UInt64(last)
        }

        /// False when `key` is already among `members`.
        mutating func insert(_ key: String, fingerprint: UInt64, among members: ArraySlice<PendingMember>) -> Bool {
            if members.count < Self.linearLimit {
                return !members.contains { $0.fingerprint == fingerprint && StrictJSON.sameBytes($0.key, key) }
            }
            if hashed.isEmpty { hashed = Set(members.map { Array($0.key.utf8) }) }
            return hashed.insert(Array(key.utf8)).inserted
        }
    }

    /// Whether two strings have the same UTF-8 bytes: keys and signed values are compared so,
    /// never by String's `==`, which equates canonically equivalent texts (a Kelvin sign and K).
    @inline(__always)
    static func sameBytes(_ left: String, _ right: String) -> Bool {
        let count = left.utf8.count
        guard count == right.utf8.count else { return false }
        return left.utf8.withContiguousStorageIfAvailable { left in
            right.utf8.withContiguousStorageIfAvailable { right in
                count == 0 || memcmp(left.baseAddress!, right.baseAddress!, count) == 0
            }
        }.flatMap { $0 } ?? left.utf8.elementsEqual(right.utf8)
    }

    /// Keys a reader reuses instead of making a String for each: Strings of more than 15 bytes
    /// are allocated, and Apple's payloads repeat the same few dozen member names.
    struct KnownKeys: Sendable {
        /// The keys by their length in bytes; only those too long for a small String.
        private let byLength: [[String]]

        init(_ keys: [String]) {
            var byLength = [[String]](repeating: [], count: (keys.map(\.utf8.count).max() ?? 0) + 1)
            for key in keys where key.utf8.count > 15 { byLength[key.utf8.count].append(key) }
            self.byLength = byLength
        }

        /// The known key whose bytes are `text`'s, if any.
        func key(spelt text: UnsafeBufferPointer<UInt8>) -> String? {
            guard text.count > 15, text.count < byLength.count else { return nil }
            return byLength[text.count].first { key in
                key.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, text.baseAddress!, text.count) == 0 } ?? false
            }
        }
    }
}
