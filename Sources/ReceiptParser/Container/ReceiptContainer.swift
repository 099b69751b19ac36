/// The PKCS #7 envelope of an app receipt, taken apart but not yet trusted.
///
///     ContentInfo ::= SEQUENCE { contentType OID (signedData), [0] EXPLICIT SignedData }
///     SignedData  ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo,
///                                [0] IMPLICIT certificates OPTIONAL, [1] crls OPTIONAL,
///                                signerInfos SET }
///
/// App Store receipts are DER; Xcode's StoreKit Testing receipts are BER with indefinite
/// lengths and the payload in a constructed OCTET STRING. Both are read here.
///
/// The envelope is parsed in Swift rather than by OpenSSL's `d2i_PKCS7` so certificates stay
/// raw bytes until verification asks for them: parsing certificates is most of OpenSSL's
/// PKCS #7 cost, and bytes can be compared, hashed and cached without it.
public struct ReceiptContainer: Sendable {
    /// The signed content: the receipt payload, still undecoded and unverified. A copy made on
    /// each access (the envelope keeps the payload where it lies in the input): keep it once.
    public var payload: [UInt8] { Array(payloadBytes) }
    /// The payload where it lies: in the input's storage when it is one OCTET STRING (DER), so
    /// that reading an envelope copies no payload; the pipeline verifies and decodes this.
    let payloadBytes: ArraySlice<UInt8>
    /// The DER of every certificate the receipt carries, in the order it carries them: at most
    /// ``DecodingLimits/maximumCertificates`` (more is ``ReceiptError/Code/tooManyCertificates``),
    /// each at most ``DecodingLimits/maximumCertificateSize`` bytes.
    public let certificates: [ByteString]
    /// Every SignerInfo. A receipt that verifies has exactly one.
    public let signers: [SignerInfo]
    /// Whether any of the envelope's lengths were indefinite (BER, as Xcode writes them).
    public let usesIndefiniteLengths: Bool

    /// Takes a receipt's envelope apart. Throws for anything that is not a SignedData carrying
    /// `data` content.
    public static func parse(_ bytes: [UInt8]) throws(ReceiptError) -> ReceiptContainer {
        guard bytes.count <= DecodingLimits.maximumInputSize else {
            throw ReceiptError(.tooLarge, "\(bytes.count) bytes exceed the limit of \(DecodingLimits.maximumInputSize)")
        }
        guard bytes.first == ASN1Tag.sequence else {
            throw ReceiptError(.notPKCS7, "the input does not start with an ASN.1 SEQUENCE")
        }
        return try ASN1Reader.read(bytes, rules: .basic) { (reader) throws(ReceiptError) in
            try parse(bytes, reader)
        }
    }

    /// The envelope of `bytes`, read by `reader` under BER (Xcode's receipts need it); values
    /// are sliced from `bytes`, so they share its storage instead of copying.
    private static func parse(_ bytes: [UInt8], _ reader: ASN1Reader) throws(ReceiptError) -> ReceiptContainer {
        let contentInfo = try reader.element(at: 0, limit: bytes.count)
        guard contentInfo.end == bytes.count else {
            throw ReceiptError(.trailingBytes, "\(bytes.count - contentInfo.end) bytes follow the PKCS #7 structure")
        }
        var indefinite = contentInfo.end != contentInfo.contentEnd

        var outer = reader.children(of: contentInfo)
        let contentType = try outer.next(ASN1Tag.objectIdentifier, "a content type OID", else: .notPKCS7)
        guard reader.bytes[contentType.contentRange].elementsEqual(OID.signedData) else {
            let name = OID.dotted(reader.bytes[contentType.contentRange]) ?? "invalid OID"
            throw ReceiptError(.notSignedData, "content type is \(name), not signedData")
        }
        let explicit = try outer.next(ASN1Tag.contextSpecific(0, constructed: true), "[0] SignedData", else: .notSignedData)
        guard outer.isAtEnd else { throw ReceiptError(.notSignedData, "ContentInfo has extra fields") }
        indefinite = indefinite || explicit.end != explicit.contentEnd

        let signedData = try reader.onlyElement(in: explicit.contentRange, depth: 2)
        guard signedData.identifier == ASN1Tag.sequence else {
            throw ReceiptError(.notSignedData, "SignedData is not a SEQUENCE")
        }
        indefinite = indefinite || signedData.end != signedData.contentEnd

        var fields = reader.children(of: signedData, depth: 2)
        _ = try fields.next(ASN1Tag.integer, "SignedData version", else: .notSignedData)
        _ = try fields.next(ASN1Tag.set, "SignedData digestAlgorithms", else: .notSignedData)
        let encapsulated = try fields.next(ASN1Tag.sequence, "SignedData encapContentInfo", else: .notSignedData)
        let certificateSet = try fields.optional(ASN1Tag.contextSpecific(0, constructed: true))
        _ = try fields.optional(ASN1Tag.contextSpecific(1, constructed: true))
        let signerSet = try fields.next(ASN1Tag.set, "SignedData signerInfos", else: .notSignedData)
        guard fields.isAtEnd else { throw ReceiptError(.notSignedData, "SignedData has extra fields") }

        let (payload, berPayload) = try readContent(reader, encapsulated, in: bytes)
        indefinite = indefinite || berPayload || encapsulated.end != encapsulated.contentEnd

        var certificates: [ByteString] = []
        if let certificateSet {
            var items = reader.children(of: certificateSet, depth: 3)
            var count = 0
            while let certificate = try items.next() {
                // Counted before anything parses one: every certificate costs an OpenSSL parse
                // and may be a candidate whose signature is tried, so the count is the cost.
                count += 1
                guard count <= DecodingLimits.maximumCertificates else {
                    throw ReceiptError(.tooManyCertificates,
                                       "the envelope carries more than \(DecodingLimits.maximumCertificates) certificates; at most \(DecodingLimits.maximumCertificates) are accepted (Apple sends 3)")
                }
                // Other CertificateChoices (attribute certificates) play no part in receipts.
                guard certificate.identifier == ASN1Tag.sequence else { continue }
                // OpenSSL's parse grows with a certificate's size (tens of thousands of empty
                // extensions fit in a few megabytes), so size is cost too.
                guard certificate.range.count <= DecodingLimits.maximumCertificateSize else {
                    throw ReceiptError(.certificateTooLarge,
                                       "certificate \(count) is \(certificate.range.count) bytes; at most \(DecodingLimits.maximumCertificateSize) are accepted (Apple's are about 1.5 KB)")
                }
                certificates.append(ByteString(bytes[certificate.range]))
            }
        }

        var signers: [SignerInfo] = []
        var items = reader.children(of: signerSet, depth: 3)
        while let item = try items.next() {
            signers.append(try SignerInfo(reader, item, in: bytes))
        }

        return ReceiptContainer(payloadBytes: payload, certificates: certificates, signers: signers,
                                usesIndefiniteLengths: indefinite)
    }

    /// The payload of `encapContentInfo`, which must be `data` and present; `bytes` are the
    /// ones `reader` reads.
    private static func readContent(_ reader: ASN1Reader, _ encapsulated: ASN1Element,
                                    in bytes: [UInt8]) throws(ReceiptError) -> (ArraySlice<UInt8>, Bool) {
        var fields = reader.children(of: encapsulated, depth: 3)
        let type = try fields.next(ASN1Tag.objectIdentifier, "the encapsulated content type", else: .notSignedData)
        guard reader.bytes[type.contentRange].elementsEqual(OID.data) else {
            let name = OID.dotted(reader.bytes[type.contentRange]) ?? "invalid OID"
            throw ReceiptError(.unsupportedContentType, "signed content type is \(name), not data")
        }
        guard let explicit = try fields.optional(ASN1Tag.contextSpecific(0, constructed: true)) else {
            throw ReceiptError(.detachedContent, "the SignedData carries no content (detached signature)")
        }
        guard fields.isAtEnd else { throw ReceiptError(.notSignedData, "encapContentInfo has extra fields") }
        let octets = try reader.onlyElement(in: explicit.contentRange, depth: 4)
        let payload = try reader.octetStringContent(of: octets, in: bytes, depth: 4)
        return (payload, explicit.end != explicit.contentEnd || octets.isConstructed)
    }
}
