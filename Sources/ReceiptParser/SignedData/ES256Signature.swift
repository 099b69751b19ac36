/// A JWS ES256 signature (RFC 7518 §3.4): r and s as two 32-byte big-endian numbers, 64 bytes in
/// all. OpenSSL checks ECDSA signatures in their DER form, so the pair is re-encoded here; a
/// signature already in DER (or of any other length) is refused, not guessed at.
enum ES256Signature {
    static let length = 64

    /// The DER ECDSA-Sig-Value of a 64-byte r‖s signature, written into one array (a warm
    /// verification makes this on every call).
    static func der(_ signature: [UInt8]) throws(ReceiptError) -> [UInt8] {
        guard signature.count == length else {
            throw ReceiptError(.signatureInvalid, "the signature has \(signature.count) bytes; ES256 signatures are 64 bytes (r and s), never DER")
        }
        let r = signature[0..<32].drop { $0 == 0 }
        let s = signature[32..<64].drop { $0 == 0 }
        // At most 2 × (2 + 33) = 70 content bytes: every length has DER's short form.
        var der: [UInt8] = []
        der.reserveCapacity(72)
        der.append(ASN1Tag.sequence)
        der.append(UInt8(integerLength(r) + integerLength(s)))
        appendInteger(r, to: &der)
        appendInteger(s, to: &der)
        return der
    }

    /// A big-endian unsigned number's DER INTEGER, tag and length included: leading zeros
    /// dropped already, one zero added where the high bit would make it negative, 0 as one zero.
    private static func integerLength(_ digits: ArraySlice<UInt8>) -> Int {
        2 + (digits.first.map { $0 & 0x80 != 0 ? digits.count + 1 : digits.count } ?? 1)
    }

    private static func appendInteger(_ digits: ArraySlice<UInt8>, to der: inout [UInt8]) {
        der.append(ASN1Tag.integer)
        der.append(UInt8(integerLength(digits) - 2))
        if digits.first.map({ $0 & 0x80 != 0 }) ?? true { der.append(0) }
        der.append(contentsOf: digits)
    }

    /// The 64-byte r‖s form of a DER ECDSA-Sig-Value on P-256 (what OpenSSL signs), or nil
    /// when `der` is not exactly one SEQUENCE of two INTEGERs of at most 32 significant bytes.
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der[0] == ASN1Tag.sequence, Int(der[1]) == der.count - 2 else { return nil }
        var raw: [UInt8] = []
        raw.reserveCapacity(length)
        var index = 2
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == ASN1Tag.integer else { return nil }
            let count = Int(der[index + 1])
            guard count >= 1, count <= 33, index + 2 + count <= der.count else { return nil }
            var digits = der[(index + 2)..<(index + 2 + count)]
            if digits.count == 33 {
                guard digits.first == 0 else { return nil }
                digits = digits.dropFirst()
            }
            raw.append(contentsOf: repeatElement(0, count: 32 - digits.count))
            raw.append(contentsOf: digits)
            index += 2 + count
        }
        return index == der.count ? raw : nil
    }
}
