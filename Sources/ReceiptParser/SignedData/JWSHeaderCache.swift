/// Headers of tokens that verified, by their exact base64url text: Apple signs every token of a
/// period under one `x5c` chain, so the next token's header is usually byte for byte one seen
/// before, and then needs neither base64 nor JSON nor certificate decoding (BENCHMARKS.md).
///
/// Reading a header is a pure function of its text, so a remembered one is what reading would
/// give. Only headers of tokens that verified are kept, at most `capacity`: the header is signed,
/// so only Apple's own headers can be. The chain is still looked up in the ``ChainCache`` and
/// judged at each token's date.
final class JWSHeaderCache: Sendable {
    /// A header's text, compared byte for byte, hashed by its length and first kilobyte: there
    /// the leaf certificate's serial number and key differ between any two of Apple's headers,
    /// and hashing all of it (6 KB) would cost a tenth of what the cache saves.
    struct Key: Hashable, Sendable {
        let text: ByteString

        func hash(into hasher: inout Hasher) {
            hasher.combine(text.count)
            text.storage.prefix(1024).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private let entries: BoundedCache<Key, JWSHeader>

    init(capacity: Int) {
        entries = BoundedCache(capacity: capacity)
    }

    /// The header whose text is `segment`, if a token with it verified before.
    func header(for segment: ArraySlice<UInt8>) -> JWSHeader? { entries[Key(text: ByteString(segment))] }

    /// Remembers the header of a token that verified; the key owns its bytes, so the token's
    /// storage is not kept alive.
    func insert(_ header: JWSHeader, for segment: ArraySlice<UInt8>) {
        entries.insert(header.owned(), for: Key(text: ByteString(Array(segment))))
    }

    var count: Int { entries.count }
}
