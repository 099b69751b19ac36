import CReceiptCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Verifies app receipts against a configured anchor and decodes the ones that pass.
///
/// Create one and share it: it is immutable and `Sendable`.
///
/// ```swift
/// let verifier = ReceiptVerifier()                       // App Store, Apple Inc. Root
/// let verified = try verifier.verifyAndDecode(bytes)     // raw, base64 or request body
/// print(verified.receipt.bundleID ?? "-", verified.receipt.inAppPurchases.count)
/// ```
///
/// The signature over the content is checked before the payload is decoded, and only the
/// creation date is read before that, so a forged receipt costs one hash and one signature
/// check to reject, whatever its size. Whatever certificates it carries, a receipt costs at
/// most ``DecodingLimits/maximumCertificates`` certificate parses and
/// ``SignatureBudget/perReceipt`` signature checks, each with a key ``KeyPolicy`` accepts and
/// under the scheme its algorithm label names.
public struct ReceiptVerifier: Sendable {
    /// What receipts must chain to.
    public let anchor: TrustAnchor
    /// Digest and time rules.
    public let policy: VerificationPolicy

    /// Apple's receipt-signing leaf certificates carry this extension.
    static let receiptSigningOID = "1.2.840.113635.100.6.11.1"
    /// Apple's WWDR intermediates carry this extension.
    static let wwdrIntermediateOID = "1.2.840.113635.100.6.2.1"

    /// Chains that passed, by the exact bytes of the receipt's certificates; nil when disabled.
    let chainCache: ChainCache?

    /// How many distinct certificate sets a verifier remembers by default. Apple signs with a
    /// handful of signer certificates at a time, so a few dozen cover years of receipts.
    public static let defaultChainCacheCapacity = 64

    /// Makes a verifier; by default App Store rules anchored at Apple Inc. Root.
    ///
    /// - Parameter chainCacheCapacity: how many certificate sets whose chain passed to remember
    ///   (0 disables the cache). A receipt whose certificates are byte-identical to a remembered
    ///   set skips certificate parsing and chain building; its signature and its certificates'
    ///   validity at its own time are still checked, so the cache never changes a verdict.
    public init(anchor: TrustAnchor = .appleIncRoot, policy: VerificationPolicy = VerificationPolicy(),
                chainCacheCapacity: Int = ReceiptVerifier.defaultChainCacheCapacity) {
        self.anchor = anchor
        self.policy = policy
        chainCache = chainCacheCapacity > 0 ? ChainCache(capacity: chainCacheCapacity) : nil
    }

    /// Reads, verifies and decodes a receipt given as raw bytes, base64 or a request body.
    public func verifyAndDecode(_ input: [UInt8]) throws(ReceiptError) -> VerifiedReceipt {
        let container = try ReceiptContainer.parse(ReceiptInput.receiptBytes(from: input))
        let report = try verify(container)
        return VerifiedReceipt(receipt: try ReceiptPayloadDecoder.decode(container.payload), verification: report)
    }

    /// Verifies the signature and the certificate chain of a parsed receipt.
    public func verify(_ container: ReceiptContainer) throws(ReceiptError) -> VerificationReport {
        var budget = SignatureBudget()
        return try verify(container, budget: &budget)
    }

    /// ``verify(_:)`` with the signature checks counted in `budget` (tests read it back).
    func verify(_ container: ReceiptContainer, budget: inout SignatureBudget) throws(ReceiptError) -> VerificationReport {
        guard container.signers.count == 1, let signerInfo = container.signers.first else {
            throw ReceiptError(.signerCount, "the receipt has \(container.signers.count) signers; exactly one is required")
        }
        let digest = try allowedDigest(signerInfo)
        guard let scheme = SignatureScheme(algorithm: signerInfo.signatureAlgorithmOID) else {
            throw ReceiptError(.unsupportedSignatureAlgorithm, "signature algorithm \(signerInfo.signatureAlgorithm) is not supported")
        }

        // A certificate set whose chain passed before needs no parsing: only its signer's key.
        let key = ChainCache.Key(certificates: container.certificates, signer: signerInfo.identifier)
        let cached = chainCache?.entry(for: key)
        var certificates: [Certificate] = []
        let signer: Certificate
        if let cached {
            signer = cached.signer
        } else {
            certificates = try container.certificates.map { (der) throws(ReceiptError) in try Certificate(der: der) }
            signer = try findSigner(signerInfo, among: certificates)
        }

        // 1. The signature, over the content or over the signed attributes that hash it.
        let payload = ByteString(container.payload)
        let signed = try signedBytes(signerInfo, payload: payload, digest: digest)
        let result = try checkSignature(signerInfo.signature, over: signed, scheme: scheme, digest: digest,
                                        by: signer, role: "the receipt signer", budget: &budget)
        try check(result, what: "receipt signature")

        // 2. The time to judge certificates at.
        let time: Date
        switch policy.validationTime {
        case .instant(let instant):
            time = instant
        case .receiptCreationDate:
            guard let created = try ReceiptPayloadDecoder.creationDate(in: container.payload) else {
                throw ReceiptError(.missingCreationDate, "the receipt has no creation date (attribute 12) and no validation time was given")
            }
            time = created
        }

        // 3. The chain (built, or remembered), judged at that time.
        let entry: ChainCache.Entry
        if let cached {
            entry = cached
        } else {
            let chain: [Certificate]
            switch anchor.mode {
            case .appStore: chain = try appStoreChain(from: signer, among: certificates, budget: &budget)
            case .storeKitTesting: chain = try storeKitChain(signer: signer)
            }
            entry = ChainCache.Entry(signer: signer, chain: chain)
            chainCache?.insert(entry, for: key)
        }
        for certificate in entry.chain where !certificate.isValid(at: time) {
            throw ReceiptError(.certificateNotValidAtTime,
                               "\(certificate.subjectName) is valid \(RFC3339.string(from: certificate.notBefore)) to \(RFC3339.string(from: certificate.notAfter)), not at \(RFC3339.string(from: time))")
        }
        return VerificationReport(mode: anchor.mode, digestAlgorithm: digest.name, validationTime: time,
                                  chain: entry.summaries)
    }

    private func allowedDigest(_ signerInfo: SignerInfo) throws(ReceiptError) -> Digest {
        let digest: Digest
        switch Digest(oid: signerInfo.digestAlgorithmOID) {
        case .sha1? where !policy.requiresSHA256: digest = .sha1
        case .sha256?: digest = .sha256
        default:
            throw ReceiptError(.digestNotAllowed, "digest algorithm \(signerInfo.digestAlgorithm) is not allowed (\(policy.requiresSHA256 ? "SHA-256 only" : "SHA-1 or SHA-256"))")
        }
        let algorithm = Array(signerInfo.signatureAlgorithmOID)
        guard algorithm == OID.rsaEncryption || Digest(signatureAlgorithm: signerInfo.signatureAlgorithmOID) == digest else {
            throw ReceiptError(.unsupportedSignatureAlgorithm, "signature algorithm \(signerInfo.signatureAlgorithm) does not go with \(digest.name)")
        }
        return digest
    }

    private func findSigner(_ signerInfo: SignerInfo, among certificates: [Certificate]) throws(ReceiptError) -> Certificate {
        // In StoreKit Testing mode the configured certificate may sign a receipt that omits it.
        var candidates = certificates
        if anchor.mode == .storeKitTesting, case .certificate(let configured) = anchor.root {
            candidates.append(configured)
        }
        let match = candidates.first { certificate in
            switch signerInfo.identifier {
            case .issuerAndSerialNumber(let issuer, let serialNumber):
                return certificate.issuer == issuer && certificate.serialNumber == serialNumber
            case .subjectKeyIdentifier(let identifier):
                return certificate.subjectKeyIdentifier == identifier
            }
        }
        guard let match else {
            throw ReceiptError(.signerNotFound, "no certificate in the receipt matches the SignerInfo's identifier")
        }
        return match
    }

    /// The bytes the signature covers: the content, or the signed attributes once their
    /// message digest is the content's (RFC 5652 §5.4).
    private func signedBytes(_ signerInfo: SignerInfo, payload: ByteString, digest: Digest) throws(ReceiptError) -> ByteString {
        guard let der = signerInfo.signedAttributes else { return payload }
        let attributes = try SignedAttributes(der: der)
        guard attributes.messageDigest.elementsEqual(digest.hash(Array(payload))) else {
            throw ReceiptError(.messageDigestMismatch, "the signed message digest does not match the content")
        }
        return attributes.signedBytes
    }

    /// The one way verification checks a signature: the key must pass ``KeyPolicy/standard``
    /// (judged when the certificate was parsed), the scheme the label names must fit the key,
    /// and the budget must allow one more check. Only then does the key do any math.
    private func checkSignature(_ signature: ByteString, over data: ByteString, scheme: SignatureScheme, digest: Digest,
                                by key: Certificate, role: String,
                                budget: inout SignatureBudget) throws(ReceiptError) -> rc_signature_result {
        if let refusal = key.keyRefusal {
            throw ReceiptError(.keyNotAllowed, "\(role) \(key.subjectName) has a key outside the key policy: \(refusal)")
        }
        if let mismatch = scheme.mismatch(with: key.publicKey) {
            throw ReceiptError(.unsupportedSignatureAlgorithm, "\(role) \(key.subjectName): \(mismatch); the algorithm label must name the key's scheme")
        }
        try budget.spend(on: "\(role) \(key.subjectName) could be tried")
        return key.verifies(signature: signature, over: data, scheme: scheme, digest: digest)
    }

    private func check(_ result: rc_signature_result, what: String) throws(ReceiptError) {
        switch result {
        case RC_SIGNATURE_VALID: return
        case RC_SIGNATURE_UNSUPPORTED_KEY: throw ReceiptError(.unsupportedSignatureAlgorithm, "\(what): unsupported key type")
        case RC_SIGNATURE_UNSUPPORTED_DIGEST: throw ReceiptError(.digestNotAllowed, "\(what): unsupported digest")
        default: throw ReceiptError(.signatureInvalid, "\(what) does not verify")
        }
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
        guard let digest = Digest(signatureAlgorithm: child.signatureAlgorithmOID),
              let scheme = SignatureScheme(algorithm: child.signatureAlgorithmOID)
        else {
            let name = OID.dotted(child.signatureAlgorithmOID) ?? "invalid"
            throw ReceiptError(.unsupportedSignatureAlgorithm, "\(child.subjectName) is signed with \(name)")
        }
        if digest == .sha1 && policy.requiresSHA256 {
            throw ReceiptError(.digestNotAllowed, "\(child.subjectName) is signed with SHA-1 and the policy requires SHA-256")
        }
        let result = try checkSignature(child.signature, over: child.tbsCertificate, scheme: scheme, digest: digest,
                                        by: parent, role: role, budget: &budget)
        return result == RC_SIGNATURE_VALID
    }

    /// signer ← WWDR intermediate ← anchor, with Apple's marker extensions in place.
    private func appStoreChain(from signer: Certificate, among certificates: [Certificate],
                               budget: inout SignatureBudget) throws(ReceiptError) -> [Certificate] {
        guard signer.hasExtension(Self.receiptSigningOID) else {
            throw ReceiptError(.missingAppleExtension, "the signer \(signer.subjectName) lacks Apple's receipt-signing extension \(Self.receiptSigningOID)")
        }
        guard !signer.hasUnhandledCriticalExtension, signer.keyUsageAllows(0x80) else {
            throw ReceiptError(.untrustedChain, "the signer's critical extensions do not allow signing")
        }
        // Each distinct candidate is tried once; byte-identical copies are not tried again.
        var intermediate: Certificate?
        var tried: [ByteString] = []
        for candidate in certificates where candidate !== signer && mayHaveIssued(signer, candidate) {
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
        guard intermediate.hasExtension(Self.wwdrIntermediateOID) else {
            throw ReceiptError(.missingAppleExtension, "the intermediate \(intermediate.subjectName) lacks Apple's WWDR extension \(Self.wwdrIntermediateOID)")
        }
        guard intermediate.isCertificateAuthority, intermediate.keyUsageAllows(0x04),
              !intermediate.hasUnhandledCriticalExtension
        else {
            throw ReceiptError(.untrustedChain, "the intermediate \(intermediate.subjectName) may not issue certificates")
        }

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
        guard root.isCertificateAuthority else {
            throw ReceiptError(.untrustedChain, "the trusted root is not a certificate authority")
        }
        return [signer, intermediate, root]
    }

    /// The receipt must be signed by the configured StoreKit Testing certificate itself.
    private func storeKitChain(signer: Certificate) throws(ReceiptError) -> [Certificate] {
        guard case .certificate(let configured) = anchor.root, signer.der == configured.der else {
            throw ReceiptError(.untrustedChain, "the receipt is not signed by the configured StoreKit Testing certificate (signer: \(signer.subjectName))")
        }
        return [configured]
    }
}
