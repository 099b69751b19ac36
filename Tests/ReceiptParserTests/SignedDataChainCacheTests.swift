import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The chain cache on StoreKit 2 tokens, shared in design with the receipts' (``ChainCache``):
/// keyed on every `x5c` certificate byte for byte (leaf, intermediate and the root, which must be
/// the configured one), each token's own date checked against a remembered chain, bounded; and it
/// never changes a verdict.
struct SignedDataChainCacheTests {
    static func token(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("jws/\(name)")))
    }

    static func verifier(capacity: Int = ReceiptVerifier.defaultChainCacheCapacity) throws -> SignedDataVerifier {
        SignedDataVerifier(anchor: try .appStore(rootCertificate: pki("jws-root.der")), chainCacheCapacity: capacity)
    }

    /// The cache key a token's header gives.
    static func key(_ token: [UInt8]) throws -> ChainCache.Key {
        let jws = try CompactJWS(token)
        return ChainCache.Key(certificates: try jws.readHeader().certificates, signer: .firstCertificate)
    }

    /// What a verifier says of a token, nested tokens included: verdict and first failure.
    static func outcome(_ verifier: SignedDataVerifier, _ token: [UInt8]) -> String {
        let inspection = verifier.inspect(token)
        return "\(inspection.verdict) \(inspection.failure.map { "\($0.code)" } ?? "-")"
    }

    @Test func tokensOfOneChainShareOneEntry() throws {
        let verifier = try Self.verifier()
        _ = try verifier.verifyTransaction(Self.token("transaction.jws"))
        #expect(verifier.chainCache!.count == 1)
        _ = try verifier.verifyRenewalInfo(Self.token("renewal-info.jws"))
        _ = try verifier.verifyNotification(Self.token("notification-subscribed.jws"))  // and its two nested tokens
        #expect(verifier.chainCache!.count == 1)
        #expect(verifier.chainCache!.entry(for: try Self.key(Self.token("renewal-info.jws"))) != nil)
    }

    @Test func aCertificateOtherByOneDetailMissesTheCache() throws {
        let verifier = try Self.verifier()
        _ = try verifier.verifyTransaction(Self.token("transaction.jws"))
        // Signed by jws-leaf's key, but x5c[0] has one letter of its subject changed / x5c[1] its
        // notBefore moved a day: another key, and the chain is built again (and fails).
        for name in ["tampered-leaf.jws", "tampered-intermediate.jws"] {
            let token = try Self.token(name)
            #expect(verifier.chainCache!.entry(for: try Self.key(token)) == nil, "\(name) should miss the cache")
            #expect(errorCode { try verifier.verifyTransaction(token) } == .untrustedChain, "\(name)")
        }
        // x5c[2] with the root's name and key but other bytes: refused before the cache is asked.
        let twin = try Self.token("root-twin.jws")
        #expect(verifier.chainCache!.entry(for: try Self.key(twin)) == nil)
        #expect(errorCode { try verifier.verifyTransaction(twin) } == .untrustedChain)
        #expect(verifier.chainCache!.count == 1)
    }

    @Test func eachTokensDateIsCheckedOnAWarmCache() throws {
        let verifier = try Self.verifier()
        _ = try verifier.verifyTransaction(Self.token("transaction.jws"))
        // The same certificates, signed 1 ms after jws-leaf's notAfter / 1 ms before its notBefore.
        for name in ["expired-leaf.jws", "not-yet-valid-leaf.jws"] {
            let token = try Self.token(name)
            #expect(verifier.chainCache!.entry(for: try Self.key(token)) != nil, "\(name) should hit the cache")
            #expect(errorCode { try verifier.verifyTransaction(token) } == .certificateNotValidAtTime, "\(name)")
        }
        // At the window's very ends it still verifies.
        for name in ["signed-at-leaf-not-after.jws", "signed-at-leaf-not-before.jws"] {
            #expect(errorCode { try verifier.verifyTransaction(Self.token(name)) } == nil, "\(name)")
        }
        #expect(verifier.chainCache!.count == 1)
    }

    /// A remembered header (the base64url text of a token that verified) spares reading it
    /// again, nothing else: a token with that header but another payload, or a header one byte
    /// off, is judged in full; a header of a token that failed is not remembered.
    @Test func aRememberedHeaderSparesOnlyItsReading() throws {
        let verifier = try Self.verifier()
        let good = try Self.token("transaction.jws")
        _ = try verifier.verifyTransaction(good)
        #expect(verifier.headerCache!.count == 1)
        let parts = good.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        let other = try Self.token("renewal-info.jws").split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        // The remembered header over another token's payload, with the first token's signature.
        let spliced = Array(parts[0]) + [UInt8(ascii: ".")] + Array(other[1]) + [UInt8(ascii: ".")] + Array(parts[2])
        #expect(errorCode { try verifier.verifyRenewalInfo(spliced) } == .signatureInvalid)
        // One letter of the header changed where it decodes to other JSON: read, and refused.
        var bent = good
        bent[2] = bent[2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(errorCode { try verifier.verifyTransaction(bent) } != nil)
        for name in ["tampered-leaf.jws", "root-twin.jws"] {
            #expect(errorCode { try verifier.verifyTransaction(Self.token(name)) } == .untrustedChain, "\(name)")
        }
        #expect(verifier.headerCache!.count == 1)
        #expect(try verifier.verifyTransaction(good).transactionId == "2000000000000101")
    }

    @Test func aDisabledCacheHoldsNothing() throws {
        let verifier = try Self.verifier(capacity: 0)
        #expect(verifier.chainCache == nil)
        #expect(verifier.headerCache == nil)
        #expect(try verifier.verifyTransaction(Self.token("transaction.jws")).transactionId == "2000000000000101")
    }

    /// Every token fixture under the test root and, with the corpus, every real token under Apple
    /// Root CA - G3 (three leaf generations: a one-entry cache evicts): the same verdict and code
    /// with a warm cache, a one-entry cache and none, each token seen twice.
    @Test func theCacheNeverChangesAVerdict() throws {
        var sets = [(name: "test root", root: try pki("jws-root.der"),
                     folder: Paths.fixtures.appendingPathComponent("jws"))]
        let tokens = Paths.corpus.appendingPathComponent("jws/tokens")
        if FileManager.default.fileExists(atPath: tokens.path) {
            sets.append(("apple", [UInt8](try Data(contentsOf: Paths.corpus.appendingPathComponent("certs/AppleRootCA-G3.der"))),
                         tokens))
        }
        for set in sets {
            let inputs = ChainCacheTests.files(in: set.folder, prefix: "").filter { $0.name.hasSuffix(".jws") }
            #expect(inputs.count > 50, "\(set.name)")
            let anchor = try TrustAnchor.appStore(rootCertificate: set.root)
            let warm = SignedDataVerifier(anchor: anchor)
            let tiny = SignedDataVerifier(anchor: anchor, chainCacheCapacity: 1)
            let uncached = SignedDataVerifier(anchor: anchor, chainCacheCapacity: 0)
            var verified = 0
            for _ in 0..<2 {
                for input in inputs {
                    let expected = Self.outcome(uncached, input.bytes)
                    #expect(Self.outcome(warm, input.bytes) == expected, "\(set.name) \(input.name): warm")
                    #expect(Self.outcome(tiny, input.bytes) == expected, "\(set.name) \(input.name): one entry")
                    if expected.hasPrefix("verified") { verified += 1 }
                }
            }
            #expect(verified > 20, "\(set.name): \(verified) verified")
            #expect(warm.chainCache!.count >= 1 && warm.chainCache!.count <= ReceiptVerifier.defaultChainCacheCapacity)
            #expect(tiny.chainCache!.count == 1)
        }
    }
}
