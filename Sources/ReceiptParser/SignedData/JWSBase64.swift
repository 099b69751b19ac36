/// The two base64 alphabets of a JWS, read strictly: one text, one byte string.
///
/// A JWS part is base64url without padding (RFC 7515 §2); an `x5c` certificate is standard base64
/// (RFC 7515 §4.1.6). Lenient readers (skipping whitespace, accepting either alphabet, ignoring
/// unused bits) give several texts one meaning, which is how a token could be re-encoded past a
/// cache or a replay check; here each byte string has exactly one accepted text.
enum JWSBase64 {
    enum Alphabet {
        /// `A–Z a–z 0–9 - _`, no padding.
        case url
        /// `A–Z a–z 0–9 + /`, padded with `=` to a multiple of four.
        case standard
    }

    private static let urlTable = table("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    private static let standardTable = table("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    private static func table(_ alphabet: String) -> [Int8] {
        var table = [Int8](repeating: -1, count: 256)
        for (index, character) in alphabet.utf8.enumerated() { table[Int(character)] = Int8(index) }
        return table
    }

    /// The decoded bytes, or nil when `text` is not the one canonical encoding of some bytes in
    /// `alphabet`: a character outside it, padding where none belongs, a length no encoding
    /// has, or set bits in the last character's unused low bits.
    static func decode(_ text: UnsafeBufferPointer<UInt8>, _ alphabet: Alphabet) -> [UInt8]? {
        var count = text.count
        if alphabet == .standard {
            guard count % 4 == 0 else { return nil }
            if count > 0, text[count - 1] == UInt8(ascii: "=") { count -= 1 }
            if count > 0, text[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        // A final group of one character encodes no whole byte.
        guard count % 4 != 1 else { return nil }
        return (alphabet == .url ? urlTable : standardTable).withUnsafeBufferPointer { table -> [UInt8]? in
            var valid = true
            let output = [UInt8](unsafeUninitializedCapacity: count / 4 * 3 + 2) { output, written in
                var index = 0
                written = 0
                Base64.decodeGroups(text, upTo: count, at: &index, table, into: output, at: &written)
                let rest = count - index
                // A group left whole holds a character outside the alphabet.
                guard rest < 4 else { valid = false; return }
                guard rest > 0 else { return }
                var group: UInt32 = 0
                for offset in 0..<rest {
                    let value = table[Int(text[index + offset])]
                    guard value >= 0 else { valid = false; return }
                    group |= UInt32(value) << (18 - 6 * offset)
                }
                // 2 characters carry 1 byte and 4 unused bits, 3 carry 2 bytes and 2 unused bits.
                let bytes = rest - 1
                guard group & ((1 << (24 - 8 * bytes)) - 1) == 0 else { valid = false; return }
                for offset in 0..<bytes {
                    output[written] = UInt8(truncatingIfNeeded: group >> (16 - 8 * offset))
                    written += 1
                }
            }
            return valid ? output : nil
        }
    }

    static func decode(_ text: ArraySlice<UInt8>, _ alphabet: Alphabet) -> [UInt8]? {
        text.withUnsafeBufferPointer { decode($0, alphabet) }
    }

    /// The one canonical encoding of `bytes` in `alphabet`: base64url without padding, or
    /// standard base64 padded to a multiple of four.
    static func encode(_ bytes: some Collection<UInt8>, _ alphabet: Alphabet) -> String {
        let characters = Array((alphabet == .url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                                                 : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/").utf8)
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next(), third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            let carried = second == nil ? 2 : third == nil ? 3 : 4
            for offset in 0..<4 {
                if offset < carried {
                    text.append(characters[Int(group >> (18 - 6 * UInt32(offset)) & 63)])
                } else if alphabet == .standard {
                    text.append(UInt8(ascii: "="))
                }
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
