/// What an attribute's value holds, read generically: for tools that show every attribute,
/// including the ones without a named property.
public enum AttributeValue: Sendable, Hashable {
    /// A DER INTEGER that fits in 64 bits.
    case integer(Int64)
    /// A DER UTF8String.
    case utf8String(String)
    /// A DER IA5String.
    case ia5String(String)
    /// A SET of receipt attributes (an in-app purchase).
    case attributes(ReceiptAttributeSet)
    /// Anything else (opaque bytes, other ASN.1 types): see ``ReceiptAttribute/value``.
    case bytes
}

extension ReceiptAttribute {
    /// The value read as one DER element, when it is one of the kinds receipts use. The opaque
    /// value (4) and the SHA-1 hash (5) are raw bytes whatever they happen to look like.
    public var decodedValue: AttributeValue {
        if attributeType == .opaqueValue || attributeType == .sha1Hash { return .bytes }
        let bytes = Array(value.storage)  // one copy, not an element-by-element walk
        let decoded = try? ASN1Reader.read(bytes, rules: .distinguished) { (reader) throws(ReceiptError) -> AttributeValue in
            let element = try reader.onlyElement(in: 0..<bytes.count, depth: 4)
            let content = reader.bytes[element.contentRange]
            switch element.identifier {
            case ASN1Tag.integer:
                return .integer(try reader.int64(element))
            case ASN1Tag.utf8String:
                return String(validatingUTF8Bytes: content).map(AttributeValue.utf8String) ?? .bytes
            case ASN1Tag.ia5String where content.allSatisfy({ $0 < 0x80 }):
                return .ia5String(String(decoding: content, as: UTF8.self))
            case ASN1Tag.set:
                return (try? ReceiptPayloadDecoder.decode(bytes)).map { .attributes($0.attributes) } ?? .bytes
            default:
                return .bytes
            }
        }
        return decoded ?? .bytes
    }
}
