#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A DER reader over borrowed memory, for the payload decoder's hot loop.
///
/// It reads elements exactly as ``ASN1Reader`` does for DER (same checks, same errors), but
/// over an `UnsafeBufferPointer` that the caller keeps alive, so reading an element copies no
/// array and touches no reference count. Only definite lengths: the payload is DER.
struct DERBuffer {
    let bytes: UnsafeBufferPointer<UInt8>

    subscript(offset: Int) -> UInt8 { bytes[offset] }

    /// Reads the element starting at `offset`, which must end at or before `limit`.
    @inline(__always)
    func element(at offset: Int, limit: Int) throws(ReceiptError) -> ASN1Element {
        guard offset < limit else { throw ReceiptError(.truncated, "input ends where an element should start (offset \(offset))") }
        let identifier = bytes[offset]
        guard identifier & 0x1F != 0x1F else {
            throw ReceiptError(.malformedEncoding, "multi-byte tag at offset \(offset)")
        }
        guard offset + 1 < limit else { throw ReceiptError(.truncated, "input ends inside the element at offset \(offset)") }
        let first = bytes[offset + 1]
        if first < 0x80 {  // the short form: nearly every element of a receipt
            let contentStart = offset + 2
            let length = Int(first)
            guard length <= limit - contentStart else {
                throw ReceiptError(.truncated, "element at offset \(offset) declares \(length) bytes, \(limit - contentStart) remain")
            }
            return ASN1Element(identifier: identifier, start: offset, contentStart: contentStart,
                               contentEnd: contentStart + length, end: contentStart + length)
        }
        return try longFormElement(at: offset, limit: limit, identifier: identifier, first: first)
    }

    private func longFormElement(at offset: Int, limit: Int, identifier: UInt8, first: UInt8) throws(ReceiptError) -> ASN1Element {
        guard first != 0x80 else {
            throw ReceiptError(.malformedEncoding, "indefinite length in DER at offset \(offset)")
        }
        var cursor = offset + 2
        let count = Int(first & 0x7F)
        guard count <= 8 else {
            throw ReceiptError(.lengthOverflow, "length of \(count) octets at offset \(offset)")
        }
        guard cursor + count <= limit else {
            throw ReceiptError(.truncated, "input ends inside the length at offset \(offset)")
        }
        var value: UInt64 = 0
        for index in cursor..<(cursor + count) {
            value = value << 8 | UInt64(bytes[index])
        }
        guard value <= UInt64(Int.max >> 1) else {
            throw ReceiptError(.lengthOverflow, "length \(value) at offset \(offset) overflows")
        }
        let length = Int(value)
        cursor += count
        guard length <= limit - cursor else {
            throw ReceiptError(.truncated, "element at offset \(offset) declares \(length) bytes, \(limit - cursor) remain")
        }
        return ASN1Element(identifier: identifier, start: offset, contentStart: cursor,
                           contentEnd: cursor + length, end: cursor + length)
    }

    /// Reads the single element that must fill `range` exactly.
    @inline(__always)
    func onlyElement(in range: Range<Int>) throws(ReceiptError) -> ASN1Element {
        let element = try element(at: range.lowerBound, limit: range.upperBound)
        guard element.end == range.upperBound else {
            throw ReceiptError(.trailingBytes, "\(range.upperBound - element.end) bytes after the element at offset \(range.lowerBound)")
        }
        return element
    }

    /// A DER INTEGER's content as a signed 64-bit value; redundant sign bytes are tolerated.
    @inline(__always)
    func int64(_ range: Range<Int>) throws(ReceiptError) -> Int64 {
        if range.count == 1 { return Int64(Int8(bitPattern: bytes[range.lowerBound])) }
        if range.count == 2 {  // attribute types 1701...1799 and most small values
            return Int64(Int16(bitPattern: UInt16(bytes[range.lowerBound]) << 8 | UInt16(bytes[range.lowerBound + 1])))
        }
        return try int64Slow(range)
    }

    private func int64Slow(_ range: Range<Int>) throws(ReceiptError) -> Int64 {
        guard !range.isEmpty else {
            throw ReceiptError(.malformedEncoding, "empty INTEGER at offset \(range.lowerBound)")
        }
        let negative = bytes[range.lowerBound] & 0x80 != 0
        if range.count <= 8 {  // fits whatever its sign bytes: sign-extend and read
            var value: UInt64 = negative ? UInt64.max : 0
            for index in range {
                value = value << 8 | UInt64(bytes[index])
            }
            return Int64(bitPattern: value)
        }
        var start = range.lowerBound
        // Skip sign-extension bytes that carry no value.
        while start + 1 < range.upperBound,
              bytes[start] == (negative ? 0xFF : 0x00),
              (bytes[start + 1] & 0x80 != 0) == negative {
            start += 1
        }
        guard range.upperBound - start <= 8 else {
            throw ReceiptError(.integerOverflow, "INTEGER of \(range.upperBound - start) bytes at offset \(range.lowerBound) exceeds 64 bits")
        }
        var value: UInt64 = negative ? UInt64.max : 0
        for index in start..<range.upperBound {
            value = value << 8 | UInt64(bytes[index])
        }
        return Int64(bitPattern: value)
    }

    /// Whether two ranges hold the same bytes.
    func equal(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        return a.isEmpty || memcmp(bytes.baseAddress! + a.lowerBound, bytes.baseAddress! + b.lowerBound, a.count) == 0
    }
}
