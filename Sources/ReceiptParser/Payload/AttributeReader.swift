/// One `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`,
/// as offsets into the payload.
struct AttributeFields {
    let type: ReceiptAttributeType
    let version: Int
    /// The content of the value's OCTET STRING.
    let value: Range<Int>
    /// Offset just past the attribute's SEQUENCE.
    let end: Int
}

/// Reads the attributes of a SET's content in order, checking each one's shape. The decoder
/// reads untrusted payloads with it; ``ReceiptAttributeSet`` re-reads bytes it has checked.
///
/// It keeps the bytes rather than an ``ASN1Reader`` and reads them with a DER reader made where
/// it is used: attributes are DER, so the rules are a constant the compiler folds away instead
/// of a field carried through the hot loop (which cost 1.5 % of the decode's instructions).
struct AttributeReader {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var cursor: Int
    let limit: Int
    private(set) var count = 0

    /// Reads the attributes in `content`, a range of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>, content: Range<Int>) {
        self.bytes = bytes
        cursor = content.lowerBound
        limit = content.upperBound
    }

    @inline(__always)
    mutating func next() throws(ReceiptError) -> AttributeFields? {
        guard cursor < limit else { return nil }
        count += 1
        guard count <= DecodingLimits.maximumAttributeCount else { throw tooMany() }
        if let fields = compactAttribute(at: cursor, longLengths: false) {
            cursor = fields.end
            return fields
        }
        return try nextInAnyForm()
    }

    private var der: ASN1Reader { ASN1Reader(bytes, rules: .distinguished) }

    private func tooMany() -> ReceiptError {
        ReceiptError(.tooLarge, "more than \(DecodingLimits.maximumAttributeCount) attributes in one set")
    }

    /// The attribute at the cursor whatever its lengths' forms, or the error that it is not one.
    @inline(never)
    private mutating func nextInAnyForm() throws(ReceiptError) -> AttributeFields {
        if let fields = compactAttribute(at: cursor, longLengths: true) {  // an in-app entry
            cursor = fields.end
            return fields
        }
        let sequence = try der.element(at: cursor, limit: limit)
        cursor = sequence.end
        guard sequence.identifier == ASN1Tag.sequence else {
            throw ReceiptError(.notReceiptPayload, "attribute at offset \(sequence.start) is not a SEQUENCE")
        }
        var position = sequence.contentStart
        let end = sequence.contentEnd
        let typeField = try field(ASN1Tag.integer, at: &position, end: end, sequence, "type INTEGER")
        let versionField = try field(ASN1Tag.integer, at: &position, end: end, sequence, "version INTEGER")
        let valueField = try field(ASN1Tag.octetString, at: &position, end: end, sequence, "value OCTET STRING")
        guard position >= end else {
            throw ReceiptError(.notReceiptPayload, "attribute at offset \(sequence.start) has more than three fields")
        }
        return AttributeFields(type: ReceiptAttributeType(rawValue: Int(try der.int64(typeField.contentRange))),
                               version: Int(try der.int64(versionField.contentRange)),
                               value: valueField.contentRange, end: sequence.end)
    }

    /// The attribute at `start` when it has the shape nearly all have, read with the reader's
    /// fast paths: short-form lengths (``ASN1Reader/shortFormElement(_:at:limit:)``), with
    /// `longLengths` lengths of up to two octets too (``ASN1Reader/compactElement(_:at:limit:)``:
    /// in-app entries), and INTEGERs of one or two bytes (``ASN1Reader/smallInteger(at:limit:)``).
    /// Nil for anything else, which the general path above then reads, accepting exactly the
    /// same attributes and naming the fault of the others.
    @inline(__always)
    private func compactAttribute(at start: Int, longLengths: Bool) -> AttributeFields? {
        guard let sequence = longLengths ? der.compactElement(ASN1Tag.sequence, at: start, limit: limit)
                                         : der.shortFormElement(ASN1Tag.sequence, at: start, limit: limit),
              let type = der.smallInteger(at: sequence.contentStart, limit: sequence.end),
              let version = der.smallInteger(at: type.end, limit: sequence.end),
              let value = longLengths ? der.compactElement(ASN1Tag.octetString, filling: version.end..<sequence.end)
                                      : der.shortFormElement(ASN1Tag.octetString, filling: version.end..<sequence.end)
        else { return nil }
        return AttributeFields(type: ReceiptAttributeType(rawValue: type.value), version: version.value,
                               value: value.contentRange, end: sequence.end)
    }

    /// The next field of an attribute, which must exist and carry `identifier`.
    @inline(__always)
    private func field(_ identifier: UInt8, at position: inout Int, end: Int, _ sequence: ASN1Element,
                       _ what: StaticString) throws(ReceiptError) -> ASN1Element {
        guard position < end else { throw missing(what, sequence) }
        let element = try der.element(at: position, limit: end)
        guard element.identifier == identifier else { throw missing(what, sequence) }
        position = element.end
        return element
    }

    private func missing(_ what: StaticString, _ sequence: ASN1Element) -> ReceiptError {
        ReceiptError(.notReceiptPayload, "expected an attribute \(what) at offset \(sequence.start)")
    }
}
