import CReceiptCrypto

/// The signature scheme an algorithm label names. A signature is checked under the scheme its
/// label says, and only with a key of that scheme's type: an `ecdsa-with-SHA256` label on an RSA
/// key is refused, not verified as RSA (which would let the label say one thing and the math
/// do another).
enum SignatureScheme: Sendable, Hashable, CustomStringConvertible {
    /// RSA PKCS #1 v1.5 (rsaEncryption in a SignerInfo, shaXWithRSAEncryption).
    case rsaPKCS1
    /// ECDSA (ecdsa-with-SHA256, ecdsa-with-SHA384).
    case ecdsa

    /// The scheme of a signature algorithm OID; nil for algorithms verification does not know.
    init?(algorithm oid: ByteString) {
        switch Array(oid) {
        case OID.rsaEncryption, OID.sha1WithRSA, OID.sha256WithRSA, OID.sha384WithRSA, OID.sha512WithRSA:
            self = .rsaPKCS1
        case OID.ecdsaWithSHA256, OID.ecdsaWithSHA384:
            self = .ecdsa
        default:
            return nil
        }
    }

    var cValue: rc_signature_scheme {
        switch self {
        case .rsaPKCS1: RC_SCHEME_RSA_PKCS1
        case .ecdsa: RC_SCHEME_ECDSA
        }
    }

    var description: String {
        switch self {
        case .rsaPKCS1: "RSA"
        case .ecdsa: "ECDSA"
        }
    }

    /// Why `key` cannot check a signature of this scheme, or nil when it can.
    func mismatch(with key: PublicKeyFacts) -> String? {
        key.scheme == self ? nil : "an \(self) signature cannot be checked with an \(key) key"
    }
}
