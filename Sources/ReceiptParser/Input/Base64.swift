/// A strict base64 decoder for receipts pasted from logs and request bodies.
///
/// Line breaks and spaces are skipped (receipts are often wrapped); any other character outside
/// the standard alphabet, or padding anywhere but the end, makes the input not base64.
enum Base64 {
    private static let table: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = Int8(index)
        }
        return table
    }()

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The decoded bytes, or nil when `text` is not base64.
    static func decode<C: Collection<UInt8>>(_ text: C) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0
        var count = 0
        var padding = 0
        for byte in text {
            if isWhitespace(byte) { continue }
            if byte == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2 else { return nil }
                continue
            }
            guard padding == 0 else { return nil }  // data after padding
            let value = table[Int(byte)]
            guard value >= 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            count += 1
            if count == 4 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                count = 0
            }
        }
        switch count {
        case 0:
            guard padding == 0 else { return nil }
        case 2:
            guard padding == 0 || padding == 2 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            guard padding == 0 || padding == 1 else { return nil }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            return nil
        }
        return output
    }
}
