/// An AlgorithmIdentifier (RFC 5280 §4.1.1.2), as SignerInfos and certificates carry it:
///
///     AlgorithmIdentifier ::= SEQUENCE { algorithm OID, parameters ANY OPTIONAL }
///
/// Only the OID is kept; which algorithms are acceptable is the trust step's decision.
enum AlgorithmIdentifier {
    /// The OID of an AlgorithmIdentifier. Parameters, when present, must be NULL for the
    /// algorithms we accept; that is checked where the algorithm is chosen. `bytes` are the
    /// ones `reader` reads.
    static func oid(_ reader: ASN1Reader, _ element: ASN1Element, in bytes: [UInt8]) throws(ReceiptError) -> ByteString {
        var parts = reader.children(of: element, depth: 6)
        let oid = try parts.next(ASN1Tag.objectIdentifier, "an algorithm OID", else: .notSignedData)
        if let parameters = try parts.next() {
            guard parameters.identifier == ASN1Tag.null, parameters.contentRange.isEmpty, parts.isAtEnd else {
                throw ReceiptError(.unsupportedSignatureAlgorithm, "algorithm parameters other than NULL")
            }
        }
        return ByteString(bytes[oid.contentRange])
    }
}
