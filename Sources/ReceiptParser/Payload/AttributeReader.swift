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
struct AttributeReader {
    let der: ASN1Reader
    private(set) var cursor: Int
    let limit: Int
    private(set) var count = 0

    init(der: ASN1Reader, content: Range<Int>) {
        self.der = der
        cursor = content.lowerBound
        limit = content.upperBound
    }

    @inline(__always)
    mutating func next() throws(ReceiptError) -> AttributeFields? {
        guard cursor < limit else { return nil }
        count += 1
        guard count <= DecodingLimits.maximumAttributeCount else { throw tooMany() }
        if let fields = compactAttribute(at: cursor) {
            cursor = fields.end
            return fields
        }
        return try nextInAnyForm()
    }

    private func tooMany() -> ReceiptError {
        ReceiptError(.tooLarge, "more than \(DecodingLimits.maximumAttributeCount) attributes in one set")
    }

    /// The attribute at the cursor whatever its lengths' forms, or the error that it is not one.
    @inline(never)
    private mutating func nextInAnyForm() throws(ReceiptError) -> AttributeFields {
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
    /// fast paths: short-form lengths (``ASN1Reader/shortFormElement(_:at:limit:)``) and INTEGERs
    /// of one or two bytes (``ASN1Reader/smallInteger(_:)``). Nil for anything else, which the
    /// general path above then reads, accepting exactly the same attributes and naming the
    /// fault of the others.
    @inline(__always)
    private func compactAttribute(at start: Int) -> AttributeFields? {
        guard let sequence = der.shortFormElement(ASN1Tag.sequence, at: start, limit: limit),
              let typeField = der.shortFormElement(ASN1Tag.integer, at: sequence.contentStart, limit: sequence.end),
              let type = der.smallInteger(typeField.contentRange),
              let versionField = der.shortFormElement(ASN1Tag.integer, at: typeField.end, limit: sequence.end),
              let version = der.smallInteger(versionField.contentRange),
              let valueField = der.shortFormElement(ASN1Tag.octetString, at: versionField.end, limit: sequence.end),
              valueField.end == sequence.end
        else { return nil }
        return AttributeFields(type: ReceiptAttributeType(rawValue: type), version: version,
                               value: valueField.contentRange, end: sequence.end)
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
