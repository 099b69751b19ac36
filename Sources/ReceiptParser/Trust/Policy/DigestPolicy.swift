/// Which digests signatures may use. SHA-256 always; SHA-1 too unless the configuration
/// requires SHA-256 (App Store receipts and chains from 2008 to 2024 use SHA-1).
///
/// Checked before any signature math, so a refused digest costs nothing.
struct DigestPolicy: Sendable {
    /// Refuse SHA-1 in the data's signature and in the chain's certificate signatures.
    let requiresSHA256: Bool

    /// The digest of the data's signature, named by the SignerInfo: SHA-1 or SHA-256 as allowed,
    /// and a signature algorithm label that names the same digest (or plain rsaEncryption).
    func digest(of signerInfo: SignerInfo) throws(ReceiptError) -> Digest {
        let digest: Digest
        switch Digest(oid: signerInfo.digestAlgorithmOID) {
        case .sha1? where !requiresSHA256: digest = .sha1
        case .sha256?: digest = .sha256
        default:
            throw ReceiptError(.digestNotAllowed, "digest algorithm \(signerInfo.digestAlgorithm) is not allowed (\(requiresSHA256 ? "SHA-256 only" : "SHA-1 or SHA-256"))")
        }
        let algorithm = Array(signerInfo.signatureAlgorithmOID)
        guard algorithm == OID.rsaEncryption || Digest(signatureAlgorithm: signerInfo.signatureAlgorithmOID) == digest else {
            throw ReceiptError(.unsupportedSignatureAlgorithm, "signature algorithm \(signerInfo.signatureAlgorithm) does not go with \(digest.name)")
        }
        return digest
    }

    /// The digest and scheme of a certificate's own signature, if this policy allows them.
    func signature(of certificate: Certificate) throws(ReceiptError) -> (Digest, SignatureScheme) {
        guard let digest = Digest(signatureAlgorithm: certificate.signatureAlgorithmOID),
              let scheme = SignatureScheme(algorithm: certificate.signatureAlgorithmOID)
        else {
            let name = OID.dotted(certificate.signatureAlgorithmOID) ?? "invalid"
            throw ReceiptError(.unsupportedSignatureAlgorithm, "\(certificate.subjectName) is signed with \(name)")
        }
        if digest == .sha1 && requiresSHA256 {
            throw ReceiptError(.digestNotAllowed, "\(certificate.subjectName) is signed with SHA-1 and the policy requires SHA-256")
        }
        return (digest, scheme)
    }
}
