/// A JWS ES256 signature (RFC 7518 §3.4): r and s as two 32-byte big-endian numbers, 64 bytes in
/// all. OpenSSL checks ECDSA signatures in their DER form, so the pair is re-encoded here; a
/// signature already in DER (or of any other length) is refused, not guessed at.
enum ES256Signature {
    static let length = 64

    /// The DER ECDSA-Sig-Value of a 64-byte r‖s signature.
    static func der(_ signature: [UInt8]) throws(ReceiptError) -> [UInt8] {
        guard signature.count == length else {
            throw ReceiptError(.signatureInvalid, "the signature has \(signature.count) bytes; ES256 signatures are 64 bytes (r and s), never DER")
        }
        var content: [UInt8] = []
        DERWriter.append(ASN1Tag.integer, unsignedInteger(signature[0..<32]), to: &content)
        DERWriter.append(ASN1Tag.integer, unsignedInteger(signature[32..<64]), to: &content)
        var der: [UInt8] = []
        DERWriter.append(ASN1Tag.sequence, content, to: &der)
        return der
    }

    /// A big-endian unsigned number as DER INTEGER content: leading zeros dropped, one zero
    /// added where the high bit would make it negative.
    private static func unsignedInteger(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var digits = bytes.drop { $0 == 0 }
        if digits.isEmpty { digits = [0][...] }
        return digits.first! & 0x80 != 0 ? [0] + digits : Array(digits)
    }
}
