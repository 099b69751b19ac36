/// Transitional: the former owning reader, kept only until Container/ and Trust/ read through
/// ``ASN1Reader`` (the next commit removes it). Reads ASN.1 elements (DER, or BER with
/// indefinite lengths when allowed) from a byte array.
///
/// Every length is checked against the bytes that are really there before it is used, so a
/// declared length never causes an allocation or a read out of bounds. Indefinite lengths are
/// resolved by walking the children, with nesting bounded by ``DecodingLimits/maximumDepth``.
struct ArrayASN1Reader {
    let bytes: [UInt8]
    let allowsIndefiniteLength: Bool

    init(_ bytes: [UInt8], allowsIndefiniteLength: Bool) {
        self.bytes = bytes
        self.allowsIndefiniteLength = allowsIndefiniteLength
    }

    /// Reads the element starting at `offset`, which must end at or before `limit`.
    ///
    func element(at offset: Int, limit: Int, depth: Int = 0) throws(ReceiptError) -> ASN1Element {
        guard depth <= DecodingLimits.maximumDepth else {
            throw ReceiptError(.nestingTooDeep, "ASN.1 nesting deeper than \(DecodingLimits.maximumDepth) levels")
        }
        if allowsIndefiniteLength, offset + 1 < limit, bytes[offset + 1] == 0x80, bytes[offset] & 0x1F != 0x1F {
            guard bytes[offset] & 0x20 != 0 else {
                throw ReceiptError(.malformedEncoding, "indefinite length on a primitive element at offset \(offset)")
            }
            // The content runs until the end-of-contents octets 00 00 at this level.
            var cursor = offset + 2
            while true {
                guard cursor + 1 < limit else {
                    throw ReceiptError(.truncated, "no end-of-contents for the indefinite length at offset \(offset)")
                }
                if bytes[cursor] == 0, bytes[cursor + 1] == 0 {
                    return ASN1Element(identifier: bytes[offset], start: offset, contentStart: offset + 2,
                                       contentEnd: cursor, end: cursor + 2)
                }
                cursor = try element(at: cursor, limit: limit, depth: depth + 1).end
            }
        }
        return try ASN1Reader.read(bytes, rules: .distinguished) { (reader) throws(ReceiptError) -> ASN1Element in
            try reader.element(at: offset, limit: limit)
        }
    }

    /// Reads the single element that must fill `range` exactly.
    func onlyElement(in range: Range<Int>, depth: Int = 0) throws(ReceiptError) -> ASN1Element {
        let element = try element(at: range.lowerBound, limit: range.upperBound, depth: depth)
        guard element.end == range.upperBound else {
            throw ReceiptError(.trailingBytes, "\(range.upperBound - element.end) bytes after the element at offset \(range.lowerBound)")
        }
        return element
    }

    /// Iterates over the children of a constructed element, in order.
    func children(of parent: ASN1Element, depth: Int = 0) -> Children {
        Children(reader: self, cursor: parent.contentStart, limit: parent.contentEnd, depth: depth + 1)
    }

    struct Children {
        let reader: ArrayASN1Reader
        var cursor: Int
        let limit: Int
        let depth: Int

        var isAtEnd: Bool { cursor >= limit }

        /// The next child, or nil after the last one.
        mutating func next() throws(ReceiptError) -> ASN1Element? {
            guard cursor < limit else { return nil }
            let element = try reader.element(at: cursor, limit: limit, depth: depth)
            cursor = element.end
            return element
        }

        /// The next child, which must exist and carry `identifier`.
        mutating func next(_ identifier: UInt8, _ what: @autoclosure () -> String,
                           else code: ReceiptError.Code) throws(ReceiptError) -> ASN1Element {
            guard let element = try next(), element.identifier == identifier else {
                throw ReceiptError(code, "expected \(what())")
            }
            return element
        }

        /// The next child if it carries `identifier`; otherwise nothing is consumed.
        mutating func optional(_ identifier: UInt8) throws(ReceiptError) -> ASN1Element? {
            guard cursor < limit, reader.bytes[cursor] == identifier else { return nil }
            return try next()
        }
    }

    /// The content of an OCTET STRING: its bytes, or for a BER constructed one the concatenation
    /// of its segments (Xcode's StoreKit receipts use that form for the payload).
    func octetStringContent(of element: ASN1Element, depth: Int = 0) throws(ReceiptError) -> [UInt8] {
        switch element.identifier {
        case ASN1Tag.octetString:
            return Array(bytes[element.contentRange])
        case ASN1Tag.constructedOctetString where allowsIndefiniteLength:
            var result: [UInt8] = []
            try appendSegments(of: element, to: &result, depth: depth)
            return result
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

    /// A DER INTEGER's content as a signed 64-bit value.
    func int64(_ element: ASN1Element) throws(ReceiptError) -> Int64 {
        guard element.identifier == ASN1Tag.integer else {
            throw ReceiptError(.wrongValueType, "expected an INTEGER at offset \(element.start)")
        }
        return try Self.int64(bytes, element.contentRange)
    }

    static func int64(_ bytes: [UInt8], _ range: Range<Int>) throws(ReceiptError) -> Int64 {
        try ASN1Reader.read(bytes, rules: .distinguished) { (reader) throws(ReceiptError) -> Int64 in
            try reader.int64(range)
        }
    }
}
