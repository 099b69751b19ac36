import CReceiptCrypto

/// Builds the chain from a signer to the configured anchor, checking each link's signature and
/// applying the ``ChainPolicy`` to each certificate as soon as it is found.
///
/// Building is separate from the per-data checks (the data's signature, validity at its
/// instant): a chain built once is a pure function of the certificates, the anchor and the
/// policies, which is what lets the ``ChainCache`` remember it.
struct ChainBuilder {
    let anchor: TrustAnchor
    let rules: ChainPolicy
    let digests: DigestPolicy

    /// The certificate `reference` names among the data's certificates (and, for StoreKit
    /// Testing, the configured certificate, which may sign a receipt that omits it).
    func signer(named reference: SignerReference, among certificates: [Certificate]) throws(ReceiptError) -> Certificate {
        var candidates = certificates
        if anchor.mode == .storeKitTesting, case .certificate(let configured) = anchor.root {
            candidates.append(configured)
        }
        let match: Certificate?
        switch reference {
        case .firstCertificate:
            match = certificates.first
        case .cms(.issuerAndSerialNumber(let issuer, let serialNumber)):
            match = candidates.first { $0.issuer == issuer && $0.serialNumber == serialNumber }
        case .cms(.subjectKeyIdentifier(let identifier)):
            match = candidates.first { $0.subjectKeyIdentifier == identifier }
        }
        guard let match else {
            throw ReceiptError(.signerNotFound, reference == .firstCertificate ? "the signed data carries no certificate"
                                                                               : "no certificate in the receipt matches the SignerInfo's identifier")
        }
        return match
    }

    /// Signer first, anchor last: signer ← intermediate ← root under App Store rules, the
    /// configured certificate alone under StoreKit Testing.
    func chain(from signer: Certificate, among certificates: [Certificate],
               budget: inout SignatureBudget) throws(ReceiptError) -> [Certificate] {
        switch anchor.mode {
        case .appStore: return try appleChain(from: signer, among: certificates, budget: &budget)
        case .storeKitTesting: return try storeKitChain(signer: signer)
        }
    }

    private func appleChain(from signer: Certificate, among certificates: [Certificate],
                            budget: inout SignatureBudget) throws(ReceiptError) -> [Certificate] {
        try rules.check(signer, as: .signer)
        // Each distinct candidate is tried once; byte-identical copies are not tried again.
        var intermediate: Certificate?
        var tried: [ByteString] = []
        // The anchor is never an intermediate: a signer the root issued directly has no WWDR link.
        for candidate in certificates where candidate !== signer && !anchor.isRoot(candidate.der) && mayHaveIssued(signer, candidate) {
            guard !tried.contains(candidate.der) else { continue }
            tried.append(candidate.der)
            if try isIssued(signer, by: candidate, role: "the issuer candidate", budget: &budget) {
                intermediate = candidate
                break
            }
        }
        guard let intermediate else {
            throw ReceiptError(.untrustedChain, "no certificate in the receipt issued the signer \(signer.subjectName)")
        }
        try rules.check(intermediate, as: .intermediate)

        let root: Certificate
        switch anchor.root {
        case .certificate(let configured):
            root = configured
        case .pinned(let sha256):
            guard let embedded = certificates.first(where: { Array($0.sha256Fingerprint) == sha256 }) else {
                throw ReceiptError(.untrustedChain, "the receipt does not carry the pinned root certificate")
            }
            root = embedded
        }
        guard root !== intermediate, try isIssued(intermediate, by: root, role: "the root", budget: &budget) else {
            throw ReceiptError(.untrustedChain, "the intermediate \(intermediate.subjectName) was not issued by the trusted root")
        }
        try rules.check(root, as: .root)
        return [signer, intermediate, root]
    }

    /// The data must be signed by the configured StoreKit Testing certificate itself.
    private func storeKitChain(signer: Certificate) throws(ReceiptError) -> [Certificate] {
        guard case .certificate(let configured) = anchor.root, signer.der == configured.der else {
            throw ReceiptError(.untrustedChain, "the receipt is not signed by the configured StoreKit Testing certificate (signer: \(signer.subjectName))")
        }
        return [configured]
    }

    /// Whether `parent` may have issued `child` by its names and key identifiers: the child's
    /// issuer is the parent's subject, and when the child names its issuer's key identifier and
    /// the parent has one, they are equal. Costs no signature check.
    private func mayHaveIssued(_ child: Certificate, _ parent: Certificate) -> Bool {
        guard child.issuer == parent.subject else { return false }
        if let authority = child.authorityKeyIdentifier, let subject = parent.subjectKeyIdentifier {
            return authority == subject
        }
        return true
    }

    /// Whether `parent` signed `child`, under the digest policy, the key policy and the budget.
    private func isIssued(_ child: Certificate, by parent: Certificate, role: String,
                          budget: inout SignatureBudget) throws(ReceiptError) -> Bool {
        guard mayHaveIssued(child, parent) else { return false }
        let (digest, scheme) = try digests.signature(of: child)
        let result = try SignatureCheck.run(child.signature, over: child.tbsCertificate, scheme: scheme, digest: digest,
                                            by: parent, role: role, budget: &budget)
        return result == RC_SIGNATURE_VALID
    }
}
