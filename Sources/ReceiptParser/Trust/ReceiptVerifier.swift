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
/// ``SignatureBudget/perVerification`` signature checks, each with a key ``KeyPolicy`` accepts and
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

    /// Checks a container's signature and chain: the CMS part (one SignerInfo, its digest and
    /// scheme, its signed attributes) here, the rest by ``ChainTrust``. `signedAt` gives the
    /// instant the signed data claims.
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
        let trust = ChainTrust(anchor: anchor, policy: policy, cache: chainCache)
        let outcome = try trust.evaluate(
            certificates: container.certificates, signer: .cms(signerInfo.identifier), budget: &budget,
            checkSignature: { (signer, budget) throws(ReceiptError) in
                // Over the content, or over the signed attributes that hash it.
                let signed = try signedBytes(signerInfo, payload: ByteString(container.payloadBytes), digest: digest)
                try SignatureCheck.require(SignatureCheck.run(signerInfo.signature, over: signed, scheme: scheme, digest: digest,
                                                              by: signer, role: "the receipt signer", budget: &budget),
                                           "receipt signature")
            },
            signedAt: signedAt)
        return VerificationReport(mode: anchor.mode, digestAlgorithm: digest.name, validationTime: outcome.instant,
                                  chain: outcome.entry.summaries)
    }

    /// The bytes the signature covers: the content, or the signed attributes once their
    /// message digest is the content's (RFC 5652 §5.4).
    private func signedBytes(_ signerInfo: SignerInfo, payload: ByteString, digest: Digest) throws(ReceiptError) -> ByteString {
        guard let der = signerInfo.signedAttributes else { return payload }
        return try SignedAttributes(der: der, contentDigest: { digest.hash(Array(payload)) }).signedBytes
    }
}
