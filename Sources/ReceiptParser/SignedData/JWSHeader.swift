/// What a JWS header must say for Apple's signed data, judged before any certificate is parsed:
/// `alg` exactly `ES256` (never taken from the token as a choice), no `crit` parameters, and an
/// `x5c` chain of standard-base64 DER certificates. `kid` and other parameters are ignored.
struct JWSHeader {
    /// The `x5c` certificates' DER, leaf first.
    let certificates: [ByteString]

    init(_ header: StrictJSON.Value) throws(ReceiptError) {
        guard case .string(let algorithm)? = header["alg"] else {
            throw ReceiptError(.unsupportedSignatureAlgorithm, "the header names no algorithm (\"alg\"); ES256 is required")
        }
        guard algorithm.utf8.elementsEqual("ES256".utf8) else {
            throw ReceiptError(.unsupportedSignatureAlgorithm, "the header's algorithm is \"\(DisplayText.escape(algorithm, limit: 40))\"; only ES256 is accepted")
        }
        // RFC 7515 §4.1.11: a recipient must refuse a token whose critical parameters it does not
        // understand; this verifier understands none.
        if header["crit"] != nil {
            throw ReceiptError(.unsupportedCriticalHeader, "the header marks parameters critical (\"crit\"); none is understood here")
        }
        guard case .array(let entries)? = header["x5c"] else {
            throw ReceiptError(.untrustedChain, "the header has no certificate chain (\"x5c\")")
        }
        guard entries.count <= DecodingLimits.maximumCertificates else {
            throw ReceiptError(.untrustedChain, "the header's x5c has \(entries.count) certificates; Apple's chain has 3")
        }
        var certificates: [ByteString] = []
        for (index, entry) in entries.enumerated() {
            guard case .string(let text) = entry else {
                throw ReceiptError(.invalidCertificate, "x5c[\(index)] is not a string")
            }
            guard text.utf8.count <= DecodingLimits.maximumCertificateSize * 4 / 3 + 4 else {
                throw ReceiptError(.certificateTooLarge, "x5c[\(index)] is larger than \(DecodingLimits.maximumCertificateSize) bytes")
            }
            var utf8 = text
            guard let der = utf8.withUTF8({ JWSBase64.decode($0, .standard) }) else {
                throw ReceiptError(.invalidCertificate, "x5c[\(index)] is not standard base64 (RFC 7515 §4.1.6: no whitespace, padded)")
            }
            certificates.append(ByteString(der))
        }
        self.certificates = certificates
    }

    private init(certificates: [ByteString]) { self.certificates = certificates }

    /// A copy whose certificates own their bytes (a remembered header keeps no token alive).
    func owned() -> JWSHeader { JWSHeader(certificates: certificates.map { ByteString(Array($0)) }) }
}
