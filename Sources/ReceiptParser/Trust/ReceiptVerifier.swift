#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Verifies app receipts against a configured anchor and decodes the ones that pass: the trust
/// configuration, and the trust step of the pipeline (`ReceiptPipeline.swift` sequences the rest).
///
/// Create one and share it: it is immutable and `Sendable`.
///
/// ```swift
/// let verifier = ReceiptVerifier()                       // App Store, Apple Inc. Root
/// let verified = try verifier.verifyAndDecode(bytes)     // raw, base64 or request body
/// print(verified.receipt.bundleID ?? "-", verified.receipt.inAppPurchases.count)
/// ```
///
/// The signature over the content is checked before anything of the payload is read (even its
/// creation date), so a forged receipt costs one hash and one signature check to reject,
/// whatever its size. Whatever certificates it carries, a receipt costs at
/// most ``DecodingLimits/maximumCertificates`` certificate parses and
/// ``SignatureBudget/perReceipt`` signature checks, each with a key ``KeyPolicy`` accepts and
/// under the scheme its algorithm label names.
public struct ReceiptVerifier: Sendable {
    /// What receipts must chain to.
    public let anchor: TrustAnchor
    /// Digest and time rules.
    public let policy: VerificationPolicy

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

    /// Checks a container's signature and chain. `signedAt` gives the instant the signed data
    /// claims; it is asked only after the signature holds, and only when the policy judges
    /// certificates at the data's own time.
    func evaluate(_ container: ReceiptContainer, budget: inout SignatureBudget,
                  signedAt: () throws(ReceiptError) -> Date) throws(ReceiptError) -> VerificationReport {
        guard container.signers.count == 1, let signerInfo = container.signers.first else {
            throw ReceiptError(.signerCount, "the receipt has \(container.signers.count) signers; exactly one is required")
        }
        let digests = DigestPolicy(requiresSHA256: policy.requiresSHA256)
        let digest = try digests.digest(of: signerInfo)
        guard let scheme = SignatureScheme(algorithm: signerInfo.signatureAlgorithmOID) else {
            throw ReceiptError(.unsupportedSignatureAlgorithm, "signature algorithm \(signerInfo.signatureAlgorithm) is not supported")
        }
        let builder = ChainBuilder(anchor: anchor, rules: .apple, digests: digests)

        // A certificate set whose chain passed before needs no parsing: only its signer's key.
        let key = ChainCache.Key(certificates: container.certificates, signer: signerInfo.identifier)
        let cached = chainCache?.entry(for: key)
        var certificates: [Certificate] = []
        let signer: Certificate
        if let cached {
            signer = cached.signer
        } else {
            certificates = try container.certificates.map { (der) throws(ReceiptError) in try Certificate(der: der) }
            signer = try builder.signer(named: signerInfo.identifier, among: certificates)
        }

        // 1. The signature, over the content or over the signed attributes that hash it.
        let signed = try signedBytes(signerInfo, payload: ByteString(container.payload), digest: digest)
        try SignatureCheck.require(SignatureCheck.run(signerInfo.signature, over: signed, scheme: scheme, digest: digest,
                                                      by: signer, role: "the receipt signer", budget: &budget),
                                   "receipt signature")

        // 2. The instant to judge certificates at.
        let time: Date
        switch policy.validationTime {
        case .instant(let instant): time = instant
        case .receiptCreationDate: time = try signedAt()
        }

        // 3. The chain (built, or remembered), judged at that instant.
        let entry: ChainCache.Entry
        if let cached {
            entry = cached
        } else {
            entry = ChainCache.Entry(signer: signer, chain: try builder.chain(from: signer, among: certificates, budget: &budget))
            chainCache?.insert(entry, for: key)
        }
        try ValidityPolicy(instant: time).check(entry.chain)
        return VerificationReport(mode: anchor.mode, digestAlgorithm: digest.name, validationTime: time,
                                  chain: entry.summaries)
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
}
