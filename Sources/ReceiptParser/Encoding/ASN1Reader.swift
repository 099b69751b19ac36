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
/// Fast path: nearly every element of a receipt has a tag below 31 and a short-form length.
/// ``shortFormElement(at:limit:)`` reads exactly those, without a check that can throw;
/// ``element(at:limit:depth:)`` tries it first and leaves everything else (long-form and
/// indefinite lengths, and naming the fault of malformed input) to an out-of-line slow path.
/// Hot loops may call the fast path themselves and fall back to ``element(at:limit:depth:)``,
/// which accepts the same elements, so a fast path never changes what is accepted.
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
    /// out of an aggregate (the -O miscompile in /work/shared/TOOLCHAIN.md).
    @inline(__always)
    static func read<T>(_ bytes: [UInt8], rules: EncodingRules,
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

    /// The fast path: the element at `offset` when it has a tag below 31 and a short-form
    /// length that ends at or before `limit`; nil for anything else, including input that
    /// ``element(at:limit:depth:)`` would accept in another form or reject.
    @inline(__always)
    func shortFormElement(at offset: Int, limit: Int) -> ASN1Element? {
        guard limit - offset >= 2 else { return nil }
        let identifier = bytes[offset]
        let length = Int(bytes[offset + 1])
        guard identifier & 0x1F != 0x1F, length < 0x80, length <= limit - offset - 2 else { return nil }
        return ASN1Element(identifier: identifier, start: offset, contentStart: offset + 2,
                           contentEnd: offset + 2 + length, end: offset + 2 + length)
    }

    /// The fast path for an expected identifier (below 31): ``shortFormElement(at:limit:)``
    /// when the element carries `identifier`, else nil.
    @inline(__always)
    func shortFormElement(_ identifier: UInt8, at offset: Int, limit: Int) -> ASN1Element? {
        guard let element = shortFormElement(at: offset, limit: limit), element.identifier == identifier else { return nil }
        return element
    }

    /// Reads the element starting at `offset`, which must end at or before `limit`. `depth` is
    /// the element's nesting level, for the bound on nesting.
    @inline(__always)
    func element(at offset: Int, limit: Int, depth: Int = 0) throws(ReceiptError) -> ASN1Element {
        guard depth <= DecodingLimits.maximumDepth else { throw Self.tooDeep() }
        if let element = shortFormElement(at: offset, limit: limit) { return element }
        return try elementInAnyForm(at: offset, limit: limit, depth: depth)
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

    /// The slow path: every form the rules allow, and the error that names what is wrong.
    @inline(never)
    private func elementInAnyForm(at offset: Int, limit: Int, depth: Int) throws(ReceiptError) -> ASN1Element {
        guard offset < limit else { throw ReceiptError(.truncated, "input ends where an element should start (offset \(offset))") }
        let identifier = bytes[offset]
        guard identifier & 0x1F != 0x1F else {
            throw ReceiptError(.malformedEncoding, "multi-byte tag at offset \(offset)")
        }
        guard offset + 1 < limit else { throw ReceiptError(.truncated, "input ends inside the element at offset \(offset)") }
        let first = bytes[offset + 1]
        if first == 0x80 {
            guard rules == .basic else {
                throw ReceiptError(.malformedEncoding, "indefinite length in DER at offset \(offset)")
            }
            return try indefiniteLengthElement(at: offset, limit: limit, depth: depth)
        }
        var cursor = offset + 2
        let length: Int
        if first < 0x80 {
            length = Int(first)
        } else {
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
            length = Int(value)
            cursor += count
        }
        guard length <= limit - cursor else {
            throw ReceiptError(.truncated, "element at offset \(offset) declares \(length) bytes, \(limit - cursor) remain")
        }
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
