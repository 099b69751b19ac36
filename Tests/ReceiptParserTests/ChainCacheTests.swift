import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The chain-verification cache never changes a verdict: every real, generated and hostile
/// receipt gives the same report or the same error code with a fresh verifier, a warm one, a
/// one-entry one (evicting all the time) and one without a cache.
struct ChainCacheTests {
    enum Outcome: Equatable, CustomStringConvertible {
        case verified(VerifiedReceipt)
        case failed(ReceiptError.Code)

        init(_ verifier: ReceiptVerifier, _ input: [UInt8]) {
            do { self = .verified(try verifier.verifyAndDecode(input)) } catch {
                self = .failed(error.code)  // typed throws: always a ReceiptError
            }
        }

        var description: String {
            switch self {
            case .verified: "verified"
            case .failed(let code): "failed(\(code))"
            }
        }
    }

    typealias Input = (name: String, bytes: [UInt8])

    /// The receipts of a folder, named `prefix` + file name.
    static func files(in folder: URL, prefix: String) -> [Input] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().filter { $0 != "SHA256SUMS" && $0 != "MANIFEST" }.compactMap { name in
            (try? Data(contentsOf: folder.appendingPathComponent(name))).map { (prefix + name, [UInt8]($0)) }
        }
    }

    /// Which bytes of the sample are flipped: every 41st in a release build, where scripts/test
    /// runs this suite at full size; every 123rd in a debug build, the sanitizers' too, where each
    /// verification costs 10-50 times as much (there the mutations were 60 % of this suite's time).
    #if DEBUG
    static let mutationStride = 123
    #else
    static let mutationStride = 41
    #endif

    /// The inputs every checkout has: the fixtures (hostile ones too), the fuzz regressions,
    /// and single-byte mutations of the sample (many of them in its certificates).
    static func generatedInputs() throws -> [Input] {
        var inputs = files(in: Paths.fixtures.appendingPathComponent("receipts"), prefix: "fixture/")
        inputs += files(in: Paths.fixtures.appendingPathComponent("hostile"), prefix: "hostile/")
        inputs += files(in: Paths.repository.appendingPathComponent("Fuzz/regressions/pipeline"), prefix: "fuzz/")
        let sample = try fixture("sample.receipt")
        for offset in stride(from: 7, to: sample.count, by: mutationStride) {
            var mutated = sample
            mutated[offset] ^= 0x01
            inputs.append(("sample^\(offset)", mutated))
        }
        return inputs
    }

    /// The real receipts, when the corpus is there.
    static func corpusInputs() -> [Input] {
        Paths.corpusAvailable ? files(in: Paths.corpus.appendingPathComponent("real"), prefix: "real/") : []
    }

    /// The trust configurations the inputs are judged under; "xcode" (the corpus's StoreKit
    /// Testing certificate) only with the corpus.
    static func configurations() throws -> [(name: String, make: (Int) throws -> ReceiptVerifier)] {
        let testRoot = try pki("test-root.der")
        let storeKitTest = try pki("storekit-test.der")
        var configurations: [(String, (Int) throws -> ReceiptVerifier)] = [
            ("apple", { ReceiptVerifier(chainCacheCapacity: $0) }),
            ("test root", { ReceiptVerifier(anchor: try .appStore(rootCertificate: testRoot), chainCacheCapacity: $0) }),
            ("test root, SHA-256", {
                ReceiptVerifier(anchor: try .appStore(rootCertificate: testRoot),
                                policy: VerificationPolicy(requiresSHA256: true), chainCacheCapacity: $0)
            }),
            ("test root, now", {
                ReceiptVerifier(anchor: try .appStore(rootCertificate: testRoot),
                                policy: VerificationPolicy(validationTime: .instant(Date())), chainCacheCapacity: $0)
            }),
            ("storekit test", { ReceiptVerifier(anchor: try .storeKitTesting(certificate: storeKitTest), chainCacheCapacity: $0) }),
        ]
        if Paths.corpusAvailable {
            let xcode = [UInt8](try Data(contentsOf: Paths.corpus.appendingPathComponent("certs/StoreKitTestCertificate.der")))
            configurations.append(("xcode", { ReceiptVerifier(anchor: try .storeKitTesting(certificate: xcode), chainCacheCapacity: $0) }))
        }
        return configurations
    }

    /// Judges `inputs` under every configuration with a warm, a one-entry, a fresh and no cache,
    /// which must agree; the configurations named in `mustVerify` must verify something.
    func expectSameVerdicts(_ inputs: [Input], mustVerify: Set<String>) throws {
        for (name, make) in try Self.configurations() {
            let warm = try make(ReceiptVerifier.defaultChainCacheCapacity)
            let tiny = try make(1)
            // First pass fills the caches; the second runs on them warm.
            let first = inputs.map { Outcome(warm, $0.bytes) }
            _ = inputs.map { Outcome(tiny, $0.bytes) }
            var verified = 0
            for (index, input) in inputs.enumerated() {
                let uncached = Outcome(try make(0), input.bytes)
                let fresh = Outcome(try make(ReceiptVerifier.defaultChainCacheCapacity), input.bytes)
                let again = Outcome(warm, input.bytes)
                let evicting = Outcome(tiny, input.bytes)
                #expect(first[index] == uncached, "\(name) \(input.name): first pass \(first[index]), uncached \(uncached)")
                #expect(fresh == uncached, "\(name) \(input.name): fresh \(fresh), uncached \(uncached)")
                #expect(again == uncached, "\(name) \(input.name): warm \(again), uncached \(uncached)")
                #expect(evicting == uncached, "\(name) \(input.name): one-entry cache \(evicting), uncached \(uncached)")
                if case .verified = uncached { verified += 1 }
            }
            #expect(warm.chainCache!.count <= ReceiptVerifier.defaultChainCacheCapacity)
            #expect(tiny.chainCache!.count <= 1)
            if mustVerify.contains(name) { #expect(verified > 0, "\(name): nothing verified") }
        }
    }

    @Test func theCacheNeverChangesAVerdict() throws {
        let inputs = try Self.generatedInputs()
        #expect(inputs.count > 60)
        try expectSameVerdicts(inputs, mustVerify: ["test root"])
    }

    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
    func theCacheNeverChangesAVerdictOnRealReceipts() throws {
        let inputs = Self.corpusInputs()
        #expect(inputs.count > 40)
        try expectSameVerdicts(inputs, mustVerify: ["apple"])
    }

    @Test func aCertificateOneByteOffMissesTheCache() throws {
        let verifier = try testRootVerifier()
        let sample = try fixture("sample.receipt")
        _ = try verifier.verifyAndDecode(sample)
        #expect(verifier.chainCache!.count == 1)

        // Flip one byte inside the signer certificate's signature (its last bytes).
        let container = try ReceiptContainer.parse(sample)
        let signer = Array(container.certificates[0])
        let start = try #require(sample.firstRange(of: signer)).lowerBound
        for position in [start + signer.count - 5, start + signer.count / 2] {
            var mutated = sample
            mutated[position] ^= 0x01
            let key = ChainCache.Key(certificates: try ReceiptContainer.parse(mutated).certificates,
                                     signer: .cms(container.signers[0].identifier))
            #expect(verifier.chainCache!.entry(for: key) == nil)
            let warm = Outcome(verifier, mutated)
            #expect(warm == Outcome(ReceiptVerifier(anchor: verifier.anchor, chainCacheCapacity: 0), mutated))
            #expect(warm != .verified(try verifier.verifyAndDecode(sample)), "a certificate one byte off must not verify")
            if case .verified = warm { Issue.record("mutated certificate at \(position) verified") }
        }
        #expect(try verifier.verifyAndDecode(sample).receipt.bundleID == "com.example.receiptparser.sample")
    }

    @Test func theTimeCheckStillRunsOnAWarmCache() throws {
        let verifier = try testRootVerifier()
        _ = try verifier.verifyAndDecode(fixture("sample.receipt"))
        // Same certificates, byte for byte, but created after the signer expired / before it began.
        for name in ["expired-at-creation.receipt", "not-yet-valid-at-creation.receipt"] {
            let bytes = try fixture(name)
            let container = try ReceiptContainer.parse(bytes)
            let key = ChainCache.Key(certificates: container.certificates, signer: .cms(container.signers[0].identifier))
            #expect(verifier.chainCache!.entry(for: key) != nil, "\(name) should hit the cache")
            #expect(errorCode { try verifier.verifyAndDecode(bytes) } == .certificateNotValidAtTime)
        }
        #expect(verifier.chainCache!.count == 1)
    }

    @Test func aDisabledCacheHoldsNothing() throws {
        let verifier = ReceiptVerifier(anchor: try .appStore(rootCertificate: pki("test-root.der")), chainCacheCapacity: 0)
        #expect(verifier.chainCache == nil)
        #expect(try verifier.verifyAndDecode(fixture("sample.receipt")).verification.chain.count == 3)
    }

    @Test func manyThreadsShareOneWarmCache() async throws {
        let verifier = try testRootVerifier()
        let inputs = try Self.generatedInputs() + Self.corpusInputs()
        let expected = inputs.map { Outcome(ReceiptVerifier(anchor: verifier.anchor, chainCacheCapacity: 0), $0.bytes) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { zip(inputs, expected).allSatisfy { Outcome(verifier, $0.0.bytes) == $0.1 } }
            }
            for try await agreed in group { #expect(agreed) }
        }
    }
}
