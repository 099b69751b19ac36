import CReceiptCrypto

/// What a certificate's public key is, as OpenSSL read it: type, size and parameters. Facts
/// only; ``KeyPolicy`` judges them.
enum PublicKeyFacts: Sendable, Hashable, CustomStringConvertible {
    /// An RSA key. `exponent` is nil when the public exponent needs more than 64 bits.
    case rsa(modulusBits: Int, exponentBits: Int, exponent: UInt64?)
    /// An EC key on a named curve (or explicit parameters, as `.other`).
    case ec(NamedCurve)
    /// Any other key type (DSA, Ed25519, RSA-PSS-only keys, ...), or a key OpenSSL cannot read.
    case other

    /// The curves the facts tell apart.
    enum NamedCurve: Sendable, Hashable {
        case p256, p384, other
    }

    /// Reads the facts of a parsed certificate's key.
    init(_ certificate: OpaquePointer) {
        var facts = rc_public_key_facts()
        guard rc_certificate_public_key(certificate, &facts) == 1 else {
            self = .other
            return
        }
        switch facts.type {
        case RC_KEY_RSA:
            let exponentBits = Int(facts.rsa_exponent_bits)
            self = .rsa(modulusBits: Int(facts.rsa_modulus_bits), exponentBits: exponentBits,
                        exponent: exponentBits <= 64 ? facts.rsa_exponent : nil)
        case RC_KEY_EC:
            switch facts.curve {
            case RC_CURVE_P256: self = .ec(.p256)
            case RC_CURVE_P384: self = .ec(.p384)
            default: self = .ec(.other)
            }
        default:
            self = .other
        }
    }

    /// The signature scheme this key can check, if any.
    var scheme: SignatureScheme? {
        switch self {
        case .rsa: .rsaPKCS1
        case .ec: .ecdsa
        case .other: nil
        }
    }

    /// For reasons: `RSA 2048-bit, e = 65537`, `EC P-384`.
    var description: String {
        switch self {
        case .rsa(let modulusBits, let exponentBits, let exponent):
            "RSA \(modulusBits)-bit, e = \(exponent.map(String.init) ?? "a \(exponentBits)-bit number")"
        case .ec(.p256): "EC P-256"
        case .ec(.p384): "EC P-384"
        case .ec(.other): "EC on a curve other than P-256 and P-384"
        case .other: "neither RSA nor EC"
        }
    }
}
