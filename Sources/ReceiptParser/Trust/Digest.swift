import CReceiptCrypto

/// The digest algorithms verification knows.
enum Digest: Sendable {
    case sha1, sha256, sha384, sha512

    var algorithm: rc_digest_algorithm {
        switch self {
        case .sha1: RC_DIGEST_SHA1
        case .sha256: RC_DIGEST_SHA256
        case .sha384: RC_DIGEST_SHA384
        case .sha512: RC_DIGEST_SHA512
        }
    }

    var name: String {
        switch self {
        case .sha1: "SHA-1"
        case .sha256: "SHA-256"
        case .sha384: "SHA-384"
        case .sha512: "SHA-512"
        }
    }

    init?(oid: ByteString) {
        switch Array(oid) {
        case OID.sha1: self = .sha1
        case OID.sha256: self = .sha256
        case OID.sha384: self = .sha384
        case OID.sha512: self = .sha512
        default: return nil
        }
    }

    /// The digest of a certificate signature algorithm (sha256WithRSAEncryption, ecdsa-with-SHA256, ...).
    init?(signatureAlgorithm oid: ByteString) {
        switch Array(oid) {
        case OID.sha1WithRSA: self = .sha1
        case OID.sha256WithRSA, OID.ecdsaWithSHA256: self = .sha256
        case OID.sha384WithRSA, OID.ecdsaWithSHA384: self = .sha384
        case OID.sha512WithRSA: self = .sha512
        default: return nil
        }
    }

    func hash(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(RC_MAX_DIGEST_LENGTH))
        let count = bytes.withUnsafeBufferPointer { input in
            rc_digest(algorithm, input.baseAddress ?? UnsafePointer(bitPattern: 1)!, input.count, &out)
        }
        return Array(out.prefix(count))
    }
}
