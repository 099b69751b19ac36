/// Reads ASN.1 elements from borrowed bytes under DER or BER rules (``EncodingRules``): the one
/// reader of the envelope, the certificates, the signed attributes and the payload.
///
/// Every length is checked against the bytes that are really there before it is used, so a
/// declared length never causes an allocation or a read out of bounds. BER's indefinite lengths
/// are resolved by walking the children, with nesting bounded by ``DecodingLimits/maximumDepth``.
///
/// The reader holds an `UnsafeBufferPointer` that its caller keeps alive (``read(_:rules:_:)``),
/// so reading an element copies no array and touches no reference count: the payload decoder's
/// hot loop reads tens of thousands of elements per receipt with it.
///
/// Fast paths: nearly every element of a receipt has a tag below 31 and a short-form length
/// (most others, such as in-app entries, a length of one or two octets), and nearly every
/// INTEGER one or two content bytes. ``element(at:limit:depth:)`` checks a short-form element
/// inline and reads other lengths by a call; the payload's hot loop goes further with
/// ``shortFormElement(_:at:limit:)``, ``compactElement(_:at:limit:)``,
/// ``shortFormElement(filling:)`` and ``smallInteger(at:limit:)``, which read only those common
/// shapes, cannot throw, and return nil for anything else. Their callers then fall back to
/// ``element(at:limit:depth:)``, which accepts the same elements, so a fast path never changes
/// what is accepted or the error.
struct ASN1Reader {
    /// The bytes being read, borrowed from the caller.
    let bytes: UnsafeBufferPointer<UInt8>
    /// What the slow paths accept beyond DER.
    let rules: EncodingRules

    /// A reader over `bytes`, which must stay valid while the reader is used.
    init(_ bytes: UnsafeBufferPointer<UInt8>, rules: EncodingRules) {
        self.bytes = bytes
        self.rules = rules
    }

    /// Runs `body` with a reader over `bytes`, borrowed for the call. The result travels in a
    /// `Result` and the function is inlined, so no throwing call returns a large value copied
    /// out of an aggregate (the Swift 6.3 -O miscompile swiftlang/swift#90477).
    @inline(__always)
    static func read<T>(_ bytes: [UInt8], rules: EncodingRules,
                        _ body: (ASN1Reader) throws(ReceiptError) -> T) throws(ReceiptError) -> T {
        try read(bytes[...], rules: rules, body)
    }

    /// ``read(_:rules:_:)`` over a slice; offsets count from the slice's first byte.
    @inline(__always)
    static func read<T>(_ bytes: ArraySlice<UInt8>, rules: EncodingRules,
                        _ body: (ASN1Reader) throws(ReceiptError) -> T) throws(ReceiptError) -> T {
        let result: Result<T, ReceiptError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(ReceiptError) {
                return .success(try body(ASN1Reader(buffer, rules: rules)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    subscript(offset: Int) -> UInt8 { bytes[offset] }

    /// The fast path for an expected identifier, one of ``ASN1Tag``'s (a tag below 31): the
    /// element at `offset` when it carries `identifier` and a short-form length that ends at or
    /// before `limit`; nil for anything else, including input that ``element(at:limit:depth:)``
    /// would accept in another form or reject.
    @inline(__always)
    func shortFormElement(_ identifier: UInt8, at offset: Int, limit: Int) -> ASN1Element? {
        guard limit - offset >= 2, bytes[offset] == identifier, bytes[offset + 1] < 0x80 else { return nil }
        let end = offset + 2 + Int(bytes[offset + 1])
        guard end <= limit else { return nil }
        return ASN1Element(identifier: identifier, start: offset, contentStart: offset + 2, contentEnd: end, end: end)
    }

    /// ``shortFormElement(_:at:limit:)`` that also takes a long-form length of one or two
    /// octets, read as ``element(at:limit:depth:)`` reads it: elements below 64 KiB, such as
    /// in-app entries (a few hundred bytes). Not for the innermost loop, whose elements are short.
    @inline(__always)
    func compactElement(_ identifier: UInt8, at offset: Int, limit: Int) -> ASN1Element? {
        if let element = shortFormElement(identifier, at: offset, limit: limit) { return element }
        guard limit - offset >= 3, bytes[offset] == identifier else { return nil }
        let contentStart: Int
        let length: Int
        switch bytes[offset + 1] {
        case 0x81:
            (contentStart, length) = (offset + 3, Int(bytes[offset + 2]))
        case 0x82 where limit - offset >= 4:
            (contentStart, length) = (offset + 4, Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        default:
            return nil
        }
        guard length <= limit - contentStart else { return nil }
        return ASN1Element(identifier: identifier, start: offset, contentStart: contentStart,
                           contentEnd: contentStart + length, end: contentStart + length)
    }

    /// The fast path for a small INTEGER: a short-form INTEGER at `offset` with one or two
    /// content bytes (attribute types 1701...1799, versions, most small values), read in one
    /// step: its value and the offset just past it. Nil for anything else, which
    /// ``element(at:limit:depth:)`` and ``int64(_:)-(Range<Int>)`` then read.
    @inline(__always)
    func smallInteger(at offset: Int, limit: Int) -> (value: Int, end: Int)? {
        guard limit - offset >= 3, bytes[offset] == ASN1Tag.integer else { return nil }
        switch bytes[offset + 1] {
        case 1:
            return (Int(Int8(bitPattern: bytes[offset + 2])), offset + 3)
        case 2 where limit - offset >= 4:
            return (Int(Int16(bitPattern: UInt16(bytes[offset + 2]) << 8 | UInt16(bytes[offset + 3]))), offset + 4)
        default:
            return nil
        }
    }

    /// The fast path for a whole range: the short-form element (tag below 31) that fills
    /// `range` exactly, as an attribute's value nearly always is; nil for anything else, which
    /// ``onlyElement(in:depth:)`` then reads or rejects.
    @inline(__always)
    func shortFormElement(filling range: Range<Int>) -> ASN1Element? {
        let start = range.lowerBound
        guard range.count >= 2, bytes[start] & 0x1F != 0x1F, bytes[start + 1] < 0x80,
              Int(bytes[start + 1]) == range.count - 2
        else { return nil }
        return ASN1Element(identifier: bytes[start], start: start, contentStart: start + 2,
                           contentEnd: range.upperBound, end: range.upperBound)
    }

    /// ``shortFormElement(filling:)`` for an expected identifier, one of ``ASN1Tag``'s.
    @inline(__always)
    func shortFormElement(_ identifier: UInt8, filling range: Range<Int>) -> ASN1Element? {
        let start = range.lowerBound
        guard range.count >= 2, bytes[start] == identifier, bytes[start + 1] < 0x80,
              Int(bytes[start + 1]) == range.count - 2
        else { return nil }
        return ASN1Element(identifier: identifier, start: start, contentStart: start + 2,
                           contentEnd: range.upperBound, end: range.upperBound)
    }

    /// ``compactElement(_:at:limit:)`` for the element that fills `range` exactly.
    @inline(__always)
    func compactElement(_ identifier: UInt8, filling range: Range<Int>) -> ASN1Element? {
        guard let element = compactElement(identifier, at: range.lowerBound, limit: range.upperBound),
              element.end == range.upperBound
        else { return nil }
        return element
    }

    /// Reads the element starting at `offset`, which must end at or before `limit`. `depth` is
    /// the element's nesting level, for the bound on nesting.
    ///
    /// The checks of a short-form element are inline (it is nearly every element); long-form
    /// and indefinite lengths are read by a call.
    @inline(__always)
    func element(at offset: Int, limit: Int, depth: Int = 0) throws(ReceiptError) -> ASN1Element {
        guard depth <= DecodingLimits.maximumDepth else { throw Self.tooDeep() }
        guard offset < limit else { throw ReceiptError(.truncated, "input ends where an element should start (offset \(offset))") }
        let identifier = bytes[offset]
        guard identifier & 0x1F != 0x1F else {
            throw ReceiptError(.malformedEncoding, "multi-byte tag at offset \(offset)")
        }
        guard offset + 1 < limit else { throw ReceiptError(.truncated, "input ends inside the element at offset \(offset)") }
        let first = bytes[offset + 1]
        guard first < 0x80 else {
            return try longFormElement(at: offset, limit: limit, identifier: identifier, first: first, depth: depth)
        }
        let contentStart = offset + 2
        let length = Int(first)
        guard length <= limit - contentStart else { throw Self.overrun(offset, length, limit - contentStart) }
        return ASN1Element(identifier: identifier, start: offset, contentStart: contentStart,
                           contentEnd: contentStart + length, end: contentStart + length)
    }

    /// Reads the single element that must fill `range` exactly.
    @inline(__always)
    func onlyElement(in range: Range<Int>, depth: Int = 0) throws(ReceiptError) -> ASN1Element {
        let element = try element(at: range.lowerBound, limit: range.upperBound, depth: depth)
        guard element.end == range.upperBound else {
            throw ReceiptError(.trailingBytes, "\(range.upperBound - element.end) bytes after the element at offset \(range.lowerBound)")
        }
        return element
    }

    private static func tooDeep() -> ReceiptError {
        ReceiptError(.nestingTooDeep, "ASN.1 nesting deeper than \(DecodingLimits.maximumDepth) levels")
    }

    private static func overrun(_ offset: Int, _ length: Int, _ remaining: Int) -> ReceiptError {
        ReceiptError(.truncated, "element at offset \(offset) declares \(length) bytes, \(remaining) remain")
    }

    /// The element at `offset`, whose tag and first length octet (0x80 or more) are checked:
    /// a long-form length, or under BER an indefinite one.
    private func longFormElement(at offset: Int, limit: Int, identifier: UInt8, first: UInt8,
                                 depth: Int) throws(ReceiptError) -> ASN1Element {
        if first == 0x80 {
            guard rules == .basic else {
                throw ReceiptError(.malformedEncoding, "indefinite length in DER at offset \(offset)")
            }
            return try indefiniteLengthElement(at: offset, limit: limit, depth: depth)
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
        guard length <= limit - cursor else { throw Self.overrun(offset, length, limit - cursor) }
        return ASN1Element(identifier: identifier, start: offset, contentStart: cursor,
                           contentEnd: cursor + length, end: cursor + length)
    }

    /// BER only: a constructed element whose content runs until the end-of-contents octets
    /// 00 00 at its level, found by walking its children.
    private func indefiniteLengthElement(at offset: Int, limit: Int, depth: Int) throws(ReceiptError) -> ASN1Element {
        guard bytes[offset] & 0x20 != 0 else {
            throw ReceiptError(.malformedEncoding, "indefinite length on a primitive element at offset \(offset)")
        }
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
}
