import CReceiptCrypto

/// An EC P-256 private key that makes ES256 signatures: an App Store Connect key (the `.p8`
/// file, PKCS #8 in PEM) for the App Store Server API's tokens and for the offers StoreKit takes.
///
/// Parsed once by OpenSSL and immutable; share one across tasks and threads. Signatures use a
/// fresh random nonce each time, so two signatures of the same bytes differ; both verify.
///
/// ```swift
/// let key = try ES256SigningKey(pkcs8: Array(contentsOfP8File))
/// let jwt = try CompactJWS.sign(header: header, payload: claims, with: key)
/// ```
public final class ES256SigningKey: Sendable {
    // An rc_signing_key: immutable once parsed, so any number of threads may sign at once.
    private nonisolated(unsafe) let handle: OpaquePointer
    /// The public point, uncompressed (`04 ‖ x ‖ y`, 65 bytes): what a verifier is given.
    public let publicKey: [UInt8]

    /// Reads a PKCS #8 private key, as DER or as a PEM `PRIVATE KEY` block. Throws
    /// ``ReceiptError/Code/invalidSigningKey`` for anything else, an encrypted key, another
    /// curve or an RSA key included.
    public init(pkcs8 bytes: [UInt8]) throws(ReceiptError) {
        let der: [UInt8]
        if bytes.first == ASN1Tag.sequence {
            der = bytes
        } else {
            let begin = Array("-----BEGIN PRIVATE KEY-----".utf8)
            let end = Array("-----END PRIVATE KEY-----".utf8)
            guard let start = bytes.firstRange(of: begin),
                  let stop = bytes[start.upperBound...].firstRange(of: end),
                  let decoded = Base64.decode(bytes[start.upperBound..<stop.lowerBound])
            else {
                throw ReceiptError(.invalidSigningKey, "neither DER nor a PEM PRIVATE KEY block (an App Store Connect .p8 file)")
            }
            der = decoded
        }
        guard let handle = der.withUnsafeBufferPointer({ rc_signing_key_parse($0.baseAddress!, $0.count) }) else {
            throw ReceiptError(.invalidSigningKey, "not an unencrypted PKCS #8 EC private key on P-256")
        }
        var point = [UInt8](repeating: 0, count: 65)
        guard rc_signing_key_public_point(handle, &point) == 65 else {
            rc_signing_key_free(handle)
            throw ReceiptError(.invalidSigningKey, "the key has no public point")
        }
        self.handle = handle
        publicKey = point
    }

    deinit { rc_signing_key_free(handle) }

    /// The ECDSA signature of SHA-256(`bytes`) as DER (an ECDSA-Sig-Value): the form of Apple's
    /// promotional-offer signature.
    public func derSignature(of bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var out = [UInt8](repeating: 0, count: Int(RC_MAX_ECDSA_DER_LENGTH))
        let written = input.withUnsafeBufferPointer { data in
            // An empty buffer has no base address; OpenSSL hashes zero bytes from any pointer.
            rc_signing_key_sign(handle, data.baseAddress ?? UnsafePointer(bitPattern: 1)!, data.count, &out)
        }
        // Signing with a parsed P-256 key fails only when memory does.
        precondition(written > 0, "OpenSSL could not sign")
        return Array(out[..<written])
    }

    /// The JWS form of the same signature: r and s, 32 bytes each (RFC 7518 §3.4).
    public func signature(of bytes: some Collection<UInt8>) -> [UInt8] {
        guard let raw = ES256Signature.raw(fromDER: derSignature(of: bytes)) else {
            preconditionFailure("OpenSSL made an ECDSA signature that is not one SEQUENCE of two P-256 integers")
        }
        return raw
    }
}
