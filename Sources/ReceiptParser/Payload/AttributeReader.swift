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
    let der: DERBuffer
    private(set) var cursor: Int
    let limit: Int
    private(set) var count = 0

    init(der: DERBuffer, content: Range<Int>) {
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

    /// The attribute at `start` when it has the shape nearly all have: one-byte lengths and
    /// INTEGERs of one or two bytes. Nil for anything else, which the general path above then
    /// reads, accepting exactly the same attributes and naming the fault of the others.
    @inline(__always)
    private func compactAttribute(at start: Int) -> AttributeFields? {
        let bytes = der.bytes
        guard limit - start >= 2, bytes[start] == ASN1Tag.sequence, bytes[start + 1] < 0x80 else { return nil }
        let end = start + 2 + Int(bytes[start + 1])
        guard end <= limit else { return nil }
        var position = start + 2
        guard let type = smallInteger(at: &position, end: end),
              let version = smallInteger(at: &position, end: end),
              end - position >= 2, bytes[position] == ASN1Tag.octetString, bytes[position + 1] < 0x80,
              position + 2 + Int(bytes[position + 1]) == end
        else { return nil }
        return AttributeFields(type: ReceiptAttributeType(rawValue: type), version: version, value: (position + 2)..<end, end: end)
    }

    /// A one- or two-byte INTEGER at `position`, ending at or before `end`.
    @inline(__always)
    private func smallInteger(at position: inout Int, end: Int) -> Int? {
        let bytes = der.bytes
        guard end - position >= 3, bytes[position] == ASN1Tag.integer else { return nil }
        switch bytes[position + 1] {
        case 1:
            defer { position += 3 }
            return Int(Int8(bitPattern: bytes[position + 2]))
        case 2 where end - position >= 4:
            defer { position += 4 }
            return Int(Int16(bitPattern: UInt16(bytes[position + 2]) << 8 | UInt16(bytes[position + 3])))
        default:
            return nil
        }
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
