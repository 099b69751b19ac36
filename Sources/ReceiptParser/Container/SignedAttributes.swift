/// The signed attributes of a SignerInfo (RFC 5652 §5.3), taken apart.
///
/// When a SignerInfo has them, the signature covers these attributes rather than the content,
/// and they bind the content by its digest: the content-type attribute must name `data`, and
/// the message-digest attribute must carry the content's hash. Each may appear once; a second
/// copy could say something else than the one checked.
///
/// Read when the trust step asks (it supplies the content's hash), not when the envelope is:
/// a receipt read without verification never depends on them.
struct SignedAttributes: Sendable {
    /// The bytes the signature covers: the attributes' DER with the implicit `[0]` tag
    /// replaced by the SET OF tag they are signed under.
    let signedBytes: ByteString

    /// Reads the DER of a SignerInfo's `[0] IMPLICIT SignedAttributes` and checks them, in
    /// order, against the content: `contentDigest` gives its hash by the SignerInfo's digest
    /// algorithm, computed when the message-digest attribute is reached.
    init(der: ByteString, contentDigest: () -> [UInt8]) throws(ReceiptError) {
        var bytes = Array(der)
        try ASN1Reader.read(bytes, rules: .distinguished) { (reader) throws(ReceiptError) in
            try Self.check(reader, contentDigest: contentDigest)
        }
        bytes[0] = ASN1Tag.set  // signed as a SET OF, stored with an implicit [0] tag
        signedBytes = ByteString(bytes)
    }

    /// Checks the attributes `reader` reads: each content-type and message-digest attribute as
    /// it comes, then that both were there.
    private static func check(_ reader: ASN1Reader, contentDigest: () -> [UInt8]) throws(ReceiptError) {
        let bytes = reader.bytes
        let set = try reader.onlyElement(in: 0..<bytes.count)
        var contentTypeSeen = false
        var digestSeen = false
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
                guard !digestSeen else { throw ReceiptError(.messageDigestMismatch, "two message-digest attributes") }
                guard value.identifier == ASN1Tag.octetString, content.elementsEqual(contentDigest()) else {
                    throw ReceiptError(.messageDigestMismatch, "the signed message digest does not match the content")
                }
                digestSeen = true
            default:
                continue
            }
        }
        guard contentTypeSeen, digestSeen else {
            throw ReceiptError(.messageDigestMismatch, "signed attributes lack content-type or message-digest")
        }
    }
}
