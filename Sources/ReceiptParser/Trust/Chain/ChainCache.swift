/// Chains that already passed, so that receipts and tokens carrying byte-identical certificates skip
/// certificate parsing and chain building and pay only for their signature and time checks.
///
/// Each verifier (``ReceiptVerifier``, ``SignedDataVerifier``) owns one; its anchor and policy never change, so a chain that passed
/// once passes again for the same certificate bytes and the same SignerInfo identifier: chain
/// building is a pure function of those. The key is therefore every certificate the receipt
/// carries, byte for byte, in order, plus the signer identifier; an entry holds the parsed signer
/// (its key checks the signature), the chain (its validity windows are checked against each
/// receipt's own time) and the chain's summaries for the report. Only successes are stored.
///
/// Bounded: past `capacity` entries an arbitrary one is dropped. Thread-safe: one lock, held only
/// for the lookup and the insertion, never while certificates are parsed or signatures checked.
final class ChainCache: Sendable {

    /// A chain that passed under the owning verifier's anchor and policy.
    final class Entry: Sendable {
        /// The certificate whose key signs receipts.
        let signer: Certificate
        /// Signer first, anchor last; every one must be valid at each receipt's time.
        let chain: [Certificate]
        /// The chain as reports show it, made once.
        let summaries: [CertificateSummary]

        init(signer: Certificate, chain: [Certificate]) {
            self.signer = signer
            self.chain = chain
            summaries = chain.map(CertificateSummary.init)
        }
    }

    /// Every certificate of a receipt and its SignerInfo's identifier.
    struct Key: Hashable, Sendable {
        let certificates: [ByteString]
        let signer: SignerReference

        /// The key of a receipt. Its certificates may still share the receipt's storage.
        init(certificates: [ByteString], signer: SignerReference) {
            self.certificates = certificates
            self.signer = signer
        }

        /// A copy that owns its bytes, so a cached key does not keep a whole receipt alive.
        func owned() -> Key {
            Key(certificates: certificates.map { ByteString(Array($0)) }, signer: signer)
        }

        /// Hashes each certificate as ``CertificateBytes`` does and the identifier; equality
        /// below compares every byte.
        func hash(into hasher: inout Hasher) {
            hasher.combine(certificates.count)
            for certificate in certificates {
                hasher.combine(CertificateBytes(der: certificate))
            }
            hasher.combine(signer)
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            guard lhs.certificates.count == rhs.certificates.count, lhs.signer == rhs.signer else { return false }
            for (left, right) in zip(lhs.certificates, rhs.certificates) where left != right {
                return false
            }
            return true
        }
    }

    private let entries: BoundedCache<Key, Entry>

    /// The most entries kept.
    var capacity: Int { entries.capacity }

    init(capacity: Int) {
        entries = BoundedCache(capacity: capacity)
    }

    /// The entry for `key`, if its chain passed before.
    func entry(for key: Key) -> Entry? { entries[key] }

    /// Remembers a chain that passed.
    func insert(_ entry: Entry, for key: Key) { entries.insert(entry, for: key.owned()) }

    /// How many chains are remembered.
    var count: Int { entries.count }
}
