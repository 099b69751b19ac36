/// The signed attributes of a SignerInfo (RFC 5652 §5.3), taken apart.
///
/// When a SignerInfo has them, the signature covers these attributes rather than the content,
/// and they bind the content by its digest: the content-type attribute must name `data`, and
/// the message-digest attribute carries the content's hash, which the trust step compares.
/// Each may appear once; a second copy could say something else than the one checked.
struct SignedAttributes: Sendable {
    /// The message-digest attribute's value: the hash of the content, by the SignerInfo's
    /// digest algorithm.
    let messageDigest: ByteString
    /// The bytes the signature covers: the attributes' DER with the implicit `[0]` tag
    /// replaced by the SET OF tag they are signed under.
    let signedBytes: ByteString

    /// Parses the DER of a SignerInfo's `[0] IMPLICIT SignedAttributes`.
    init(der: ByteString) throws(ReceiptError) {
        var bytes = Array(der)
        messageDigest = try ASN1Reader.read(bytes, rules: .distinguished) { (reader) throws(ReceiptError) in
            try Self.messageDigest(in: reader)
        }
        bytes[0] = ASN1Tag.set  // signed as a SET OF, stored with an implicit [0] tag
        signedBytes = ByteString(bytes)
    }

    /// The message-digest attribute's value, once the attributes `reader` reads are checked.
    private static func messageDigest(in reader: ASN1Reader) throws(ReceiptError) -> ByteString {
        let bytes = reader.bytes
        let set = try reader.onlyElement(in: 0..<bytes.count)
        var contentTypeSeen = false
        var digest: ByteString?
        var items = reader.children(of: set)
        while let attribute = try items.next() {
            var parts = reader.children(of: attribute)
            let type = try parts.next(ASN1Tag.objectIdentifier, "a signed attribute type", else: .notSignedData)
            let values = try parts.next(ASN1Tag.set, "signed attribute values", else: .notSignedData)
            let value = try reader.onlyElement(in: values.contentRange)
            let content = bytes[value.contentRange]
            switch Array(bytes[type.contentRange]) {
            case OID.contentTypeAttribute:
                guard !contentTypeSeen else { throw ReceiptError(.messageDigestMismatch, "two content-type attributes") }
                guard value.identifier == ASN1Tag.objectIdentifier, content.elementsEqual(OID.data) else {
                    throw ReceiptError(.unsupportedContentType, "signed content-type attribute is not data")
                }
                contentTypeSeen = true
            case OID.messageDigestAttribute:
                guard digest == nil else { throw ReceiptError(.messageDigestMismatch, "two message-digest attributes") }
                guard value.identifier == ASN1Tag.octetString else {
                    throw ReceiptError(.messageDigestMismatch, "the signed message digest does not match the content")
                }
                digest = ByteString(Array(content))
            default:
                continue
            }
        }
        guard contentTypeSeen, let digest else {
            throw ReceiptError(.messageDigestMismatch, "signed attributes lack content-type or message-digest")
        }
        return digest
    }
}
