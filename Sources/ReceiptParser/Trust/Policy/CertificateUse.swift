/// What a certificate's own extensions allow it to do, by its place in the chain: critical
/// extensions nobody here understands forbid any use (RFC 5280 §4.2), and key usage, when
/// present, must name the use.
enum CertificateUse: CertificateRule {
    /// The certificate signs the data itself: digitalSignature.
    case signing
    /// The certificate issues other certificates: a CA with keyCertSign.
    case issuing
    /// The anchor: a CA. Its extensions are the configuration's business, not the data's.
    case anchoring

    // OpenSSL's KU_* bits.
    private static let digitalSignature: UInt32 = 0x80
    private static let keyCertSign: UInt32 = 0x04

    func check(_ certificate: Certificate, as role: ChainRole) throws(ReceiptError) {
        switch self {
        case .signing:
            guard !certificate.hasUnhandledCriticalExtension, certificate.keyUsageAllows(Self.digitalSignature) else {
                throw ReceiptError(.untrustedChain, "the \(role)'s critical extensions do not allow signing")
            }
        case .issuing:
            guard certificate.isCertificateAuthority, certificate.keyUsageAllows(Self.keyCertSign),
                  !certificate.hasUnhandledCriticalExtension
            else {
                throw ReceiptError(.untrustedChain, "the \(role) \(certificate.subjectName) may not issue certificates")
            }
        case .anchoring:
            guard certificate.isCertificateAuthority else {
                throw ReceiptError(.untrustedChain, "the trusted \(role) is not a certificate authority")
            }
        }
    }
}
