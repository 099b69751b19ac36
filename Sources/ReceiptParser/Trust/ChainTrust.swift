#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The trust step for any data Apple signs with a certificate chain: find the signer, check the
/// data's signature, then build (or remember) the chain under the ``ChainPolicy`` and judge it at
/// the data's instant.
///
/// The order keeps forgeries cheap: the data's own signature is checked before its instant is
/// read and before any signature is spent on the chain, and a chain the ``ChainCache`` remembers
/// costs no certificate parse. App Store receipts (``ReceiptVerifier``) supply a SignerInfo and
/// a PKCS #7 signature check; a JWS supplies its `x5c` and an ES256 check.
struct ChainTrust {
    let anchor: TrustAnchor
    let policy: VerificationPolicy
    let cache: ChainCache?

    /// What the trust step established: the chain (signer first) and the instant it was judged at.
    struct Outcome {
        let entry: ChainCache.Entry
        let instant: Date
    }

    /// Evaluates data signed by `signer`, one of `certificates` (DER, in the data's order).
    ///
    /// - Parameters:
    ///   - checkSignature: checks the data's signature with the signer's key, spending from the
    ///     budget through ``SignatureCheck``; throws when it does not hold.
    ///   - signedAt: the instant the signed data claims, asked only once its signature holds and
    ///     only when the policy judges certificates at the data's own time.
    func evaluate(certificates der: [ByteString], signer reference: SignerReference, budget: inout SignatureBudget,
                  checkSignature: (Certificate, inout SignatureBudget) throws(ReceiptError) -> Void,
                  signedAt: () throws(ReceiptError) -> Date) throws(ReceiptError) -> Outcome {
        let builder = ChainBuilder(anchor: anchor, rules: .apple, digests: DigestPolicy(requiresSHA256: policy.requiresSHA256))

        // A certificate set whose chain passed before needs no parsing: only its signer's key.
        let key = ChainCache.Key(certificates: der, signer: reference)
        let cached = cache?.entry(for: key)
        var certificates: [Certificate] = []
        let signer: Certificate
        if let cached {
            signer = cached.signer
        } else {
            certificates = try der.map { (bytes) throws(ReceiptError) in try Certificate(der: bytes) }
            signer = try builder.signer(named: reference, among: certificates)
        }

        // 1. The data's signature.
        try checkSignature(signer, &budget)

        // 2. The instant to judge certificates at.
        let instant: Date
        switch policy.validationTime {
        case .instant(let given): instant = given
        case .signedDate: instant = try signedAt()
        }

        // 3. The chain (built, or remembered), judged at that instant.
        let entry: ChainCache.Entry
        if let cached {
            entry = cached
        } else {
            entry = ChainCache.Entry(signer: signer, chain: try builder.chain(from: signer, among: certificates, budget: &budget))
            cache?.insert(entry, for: key)
        }
        try ValidityPolicy(instant: instant).check(entry.chain)
        return Outcome(entry: entry, instant: instant)
    }
}
