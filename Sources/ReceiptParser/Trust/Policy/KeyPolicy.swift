/// Which public keys verification may use, judged before any signature math with them.
///
/// The point is cost as much as strength: an attacker writes the certificates a receipt carries,
/// and an RSA check with a 16 384-bit modulus or a 3 000-bit public exponent costs milliseconds,
/// where Apple's keys (RSA 2048 with e = 65537, EC P-384 for the G3 root) cost microseconds.
/// A key outside the policy is ``ReceiptError/Code/keyNotAllowed``.
struct KeyPolicy: Sendable {
    /// RSA modulus sizes accepted, in bits.
    var rsaModulusBits: ClosedRange<Int> = 2048...4096
    /// The largest RSA public exponent accepted (RFC 4871 and NIST SP 800-56B use 2^16 + 1;
    /// 2^32 bounds the verification cost to a few dozen squarings).
    var maximumRSAExponent: UInt64 = 1 << 32
    /// EC curves accepted.
    var curves: Set<PublicKeyFacts.NamedCurve> = [.p256, .p384]

    /// RSA 2048 to 4096 bits with an odd exponent from 3 to 2^32; EC P-256 or P-384.
    static let standard = KeyPolicy()

    /// Why the key is refused, or nil when it is accepted.
    func refusal(of key: PublicKeyFacts) -> String? {
        switch key {
        case .rsa(let modulusBits, _, let exponent):
            guard rsaModulusBits.contains(modulusBits) else {
                return "\(key): the modulus must have \(rsaModulusBits.lowerBound) to \(rsaModulusBits.upperBound) bits"
            }
            guard let exponent, exponent <= maximumRSAExponent else {
                return "\(key): the public exponent must be at most 2^32"
            }
            // An even exponent or 1 is no RSA key at all: e = 1 "verifies" whatever the block is.
            guard exponent > 1, exponent & 1 == 1 else {
                return "\(key): the public exponent must be odd and greater than 1"
            }
            return nil
        case .ec(let curve):
            return curves.contains(curve) ? nil : "\(key): only P-256 and P-384 are accepted"
        case .other:
            return "the key is \(key): only RSA and EC keys are accepted"
        }
    }
}
