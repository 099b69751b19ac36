#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The contents of primitive elements: INTEGERs, OCTET STRINGs, bytes compared in place.
extension ASN1Reader {
    /// An INTEGER element's value as a signed 64-bit number.
    func int64(_ element: ASN1Element) throws(ReceiptError) -> Int64 {
        guard element.identifier == ASN1Tag.integer else {
            throw ReceiptError(.wrongValueType, "expected an INTEGER at offset \(element.start)")
        }
        return try int64(element.contentRange)
    }

    /// INTEGER content (two's-complement, big-endian) as Int64; redundant sign bytes are
    /// tolerated.
    /// Content of one or two bytes, which most values have, is read inline; longer content by a
    /// call.
    @inline(__always)
    func int64(_ range: Range<Int>) throws(ReceiptError) -> Int64 {
        if range.count == 1 { return Int64(Int8(bitPattern: bytes[range.lowerBound])) }
        if range.count == 2 {
            return Int64(Int16(bitPattern: UInt16(bytes[range.lowerBound]) << 8 | UInt16(bytes[range.lowerBound + 1])))
        }
        return try int64InAnySize(range)
    }

    private func int64InAnySize(_ range: Range<Int>) throws(ReceiptError) -> Int64 {
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

    /// The content of an OCTET STRING: its bytes, a slice of `array` (the bytes this reader
    /// reads, sharing their storage), or under BER for a constructed one the concatenation of
    /// its segments (Xcode's StoreKit receipts use that form for the payload).
    func octetStringContent(of element: ASN1Element, in array: [UInt8], depth: Int = 0) throws(ReceiptError) -> ArraySlice<UInt8> {
        switch element.identifier {
        case ASN1Tag.octetString:
            return array[element.contentRange]
        case ASN1Tag.constructedOctetString where rules == .basic:
            var result: [UInt8] = []
            try appendSegments(of: element, to: &result, depth: depth)
            return result[...]
        default:
            throw ReceiptError(.malformedEncoding, "expected an OCTET STRING at offset \(element.start)")
        }
    }

    private func appendSegments(of element: ASN1Element, to result: inout [UInt8], depth: Int) throws(ReceiptError) {
        var segments = children(of: element, depth: depth)
        while let segment = try segments.next() {
            switch segment.identifier {
            case ASN1Tag.octetString: result.append(contentsOf: bytes[segment.contentRange])
            case ASN1Tag.constructedOctetString: try appendSegments(of: segment, to: &result, depth: depth + 1)
            default: throw ReceiptError(.malformedEncoding, "non-OCTET STRING segment at offset \(segment.start)")
            }
        }
    }

    /// Whether two ranges hold the same bytes.
    func equal(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        return a.isEmpty || memcmp(bytes.baseAddress! + a.lowerBound, bytes.baseAddress! + b.lowerBound, a.count) == 0
    }
}
