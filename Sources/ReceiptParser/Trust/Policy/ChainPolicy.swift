/// The rules an Apple chain (signer ← intermediate ← root) must satisfy, place by place, in the
/// order they are applied. The digest rules (``DigestPolicy``), the key rules (``KeyPolicy``) and
/// validity at an instant (``ValidityPolicy``) complete them.
///
/// Written for any data Apple signs with this chain shape: App Store receipts (PKCS #7) today,
/// StoreKit 2's signed transactions (JWS with an `x5c` chain) next.
struct ChainPolicy: Sendable {
    let signer: [any CertificateRule]
    let intermediate: [any CertificateRule]
    let root: [any CertificateRule]

    /// Apple's rules: the signer marked for receipt signing and allowed to sign; the
    /// intermediate marked WWDR and allowed to issue; the root a certificate authority.
    static let apple = ChainPolicy(signer: [AppleMarkerExtension.receiptSigning, CertificateUse.signing],
                                   intermediate: [AppleMarkerExtension.wwdrIntermediate, CertificateUse.issuing],
                                   root: [CertificateUse.anchoring])

    /// Applies the rules for `role` to `certificate`, in order; the first that fails throws.
    func check(_ certificate: Certificate, as role: ChainRole) throws(ReceiptError) {
        let rules: [any CertificateRule]
        switch role {
        case .signer: rules = signer
        case .intermediate: rules = intermediate
        case .root: rules = root
        }
        for rule in rules {
            try rule.check(certificate, as: role)
        }
    }
}
