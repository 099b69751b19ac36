/// A SignerInfo (RFC 5652 §5.3): who signed, with which algorithms, and the signature.
public struct SignerInfo: Sendable, Hashable {
    /// How the SignerInfo names its certificate.
    public enum Identifier: Sendable, Hashable {
        /// The issuer's Name (DER) and the certificate's serial number (INTEGER content).
        case issuerAndSerialNumber(issuer: ByteString, serialNumber: ByteString)
        /// The subjectKeyIdentifier of the certificate.
        case subjectKeyIdentifier(ByteString)
    }

    /// The signer's certificate as this SignerInfo names it.
    public let identifier: Identifier
    /// The digest algorithm, as dotted OID text (`1.3.14.3.2.26` is SHA-1).
    public var digestAlgorithm: String { OID.dotted(digestAlgorithmOID) ?? "invalid" }
    /// The signature algorithm, as dotted OID text (`1.2.840.113549.1.1.1` is RSA).
    public var signatureAlgorithm: String { OID.dotted(signatureAlgorithmOID) ?? "invalid" }
    /// The DER of the signed attributes ([0] IMPLICIT SET), when present.
    public let signedAttributes: ByteString?
    /// The signature bytes.
    public let signature: ByteString

    let digestAlgorithmOID: ByteString
    let signatureAlgorithmOID: ByteString

    /// Reads the SignerInfo `element`; `bytes` are the ones `reader` reads, for the values.
    init(_ reader: ASN1Reader, _ element: ASN1Element, in bytes: [UInt8]) throws(ReceiptError) {
        guard element.identifier == ASN1Tag.sequence else {
            throw ReceiptError(.notSignedData, "SignerInfo is not a SEQUENCE")
        }
        var fields = reader.children(of: element, depth: 4)
        _ = try fields.next(ASN1Tag.integer, "SignerInfo version", else: .notSignedData)
        guard let sid = try fields.next() else { throw ReceiptError(.notSignedData, "SignerInfo has no signer identifier") }
        switch sid.identifier {
        case ASN1Tag.sequence:
            var parts = reader.children(of: sid, depth: 5)
            let issuer = try parts.next(ASN1Tag.sequence, "the signer's issuer Name", else: .notSignedData)
            let serial = try parts.next(ASN1Tag.integer, "the signer's serial number", else: .notSignedData)
            identifier = .issuerAndSerialNumber(issuer: ByteString(bytes[issuer.range]),
                                                serialNumber: ByteString(bytes[serial.contentRange]))
        case ASN1Tag.contextSpecific(0, constructed: false):
            identifier = .subjectKeyIdentifier(ByteString(bytes[sid.contentRange]))
        default:
            throw ReceiptError(.notSignedData, "unknown signer identifier form")
        }
        let digest = try fields.next(ASN1Tag.sequence, "SignerInfo digestAlgorithm", else: .notSignedData)
        digestAlgorithmOID = try AlgorithmIdentifier.oid(reader, digest, in: bytes)
        let attributes = try fields.optional(ASN1Tag.contextSpecific(0, constructed: true))
        signedAttributes = attributes.map { ByteString(bytes[$0.range]) }
        let algorithm = try fields.next(ASN1Tag.sequence, "SignerInfo signatureAlgorithm", else: .notSignedData)
        signatureAlgorithmOID = try AlgorithmIdentifier.oid(reader, algorithm, in: bytes)
        let signatureElement = try fields.next(ASN1Tag.octetString, "SignerInfo signature", else: .notSignedData)
        signature = ByteString(bytes[signatureElement.contentRange])
        _ = try fields.optional(ASN1Tag.contextSpecific(1, constructed: true))
        guard fields.isAtEnd else { throw ReceiptError(.notSignedData, "SignerInfo has extra fields") }
    }
}
