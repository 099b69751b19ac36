// StoreKit 2 token benchmarks: SignedDataVerifier against the C floors and
// vapor/jwt-kit's X5CVerifier (JWTKitPeer.swift), over the same tokens in the same run.
//
//   JWS verify+decode warm / cold   verifyTransaction(bytes): chain cache warm / disabled
//   JWS notification warm           verifyNotification(bytes), its nested tokens verified too
//   C ES256 only                    EVP_DigestVerify of the token, the leaf's key loaded, signature in DER
//   C x5c verify                    d2i_X509 × 3, X509_verify × 2 (root over intermediate over leaf), ES256
//   jwt-kit X5CVerifier             X5CVerifier.verifyJWS(_:as:jsonDecoder:validationTime: .signedDate)
//
// Tokens: "test transaction" (TestReceipts/jws/transaction.jws, the test PKI: P-384 root and
// intermediate, P-256 leaf), always; "Apple transaction" (a real Production token of
// 2023-06-28, its leaf expired since) when ../shared/corpus is present.
import Benchmark
import CFloor
import Foundation
import ReceiptParser

/// A token read from a file, and its parts as the C floors take them.
struct TokenFixture {
    let name: String
    /// The token alone (the file's final newline dropped: jwt-kit takes no whitespace).
    let bytes: [UInt8]
    let certificates: [[UInt8]]
    let signingInput: [UInt8]
    let signature: [UInt8]

    init?(name: String, url: URL) {
        guard let data = try? Data(contentsOf: url),
              let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines)
        else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.base64URL(parts[0]), let signature = Self.base64URL(parts[2]),
              let json = try? JSONSerialization.jsonObject(with: Data(header)) as? [String: Any],
              let x5c = json["x5c"] as? [String]
        else { return nil }
        self.name = name
        bytes = Array(text.utf8)
        certificates = x5c.compactMap { Data(base64Encoded: $0).map { [UInt8]($0) } }
        signingInput = Array((parts[0] + "." + parts[1]).utf8)
        self.signature = signature
    }

    static func base64URL(_ part: Substring) -> [UInt8]? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).map { [UInt8]($0) }
    }

    /// The C floors' view of the token, made once.
    func floor() -> OpaquePointer {
        let c = certificates, input = signingInput, s = signature
        return c[0].withUnsafeBufferPointer { leaf in
            c[1].withUnsafeBufferPointer { intermediate in
                c[2].withUnsafeBufferPointer { root in
                    input.withUnsafeBufferPointer { input in
                        s.withUnsafeBufferPointer { s in
                            floor_jws_new(leaf.baseAddress!, leaf.count, intermediate.baseAddress!, intermediate.count,
                                          root.baseAddress!, root.count, input.baseAddress!, input.count,
                                          s.baseAddress!, s.count)
                        }
                    }
                }
            }
        }!
    }
}

/// The C floors' view of one token, kept for the whole run and freed with it.
final class FloorHandle: @unchecked Sendable {
    // @unchecked: the floors only read it.
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { floor_jws_free(pointer) }
}

func tokenBenchmarks(repository: URL) {
    let jws = repository.appendingPathComponent("TestReceipts/jws")
    let testRoot = [UInt8]((try? Data(contentsOf: repository.appendingPathComponent("TestReceipts/pki/jws-root.der"))) ?? Data())
    var cases: [(token: TokenFixture, root: [UInt8])] = []
    guard let test = TokenFixture(name: "test transaction", url: jws.appendingPathComponent("transaction.jws")) else {
        fatalError("missing or unreadable \(jws.path)/transaction.jws")
    }
    cases.append((test, testRoot))
    let corpus = repository.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    let appleRoot = (try? Data(contentsOf: corpus.appendingPathComponent("certs/AppleRootCA-G3.der"))).map { [UInt8]($0) }
    if let appleRoot, let apple = TokenFixture(
        name: "Apple transaction",
        url: corpus.appendingPathComponent("jws/tokens/production-transaction-20230628T083832-072921.jws")) {
        cases.append((apple, appleRoot))
    } else {
        print("note: \(corpus.path)/jws is missing; the Apple token benchmarks are skipped")
    }

    for (token, root) in cases {
        let anchor = try! TrustAnchor.appStore(rootCertificate: root)
        let bytes = token.bytes
        // Every benchmark below checks its result once before timing: a failure stops the run.
        // Warm is a server's steady state: one verifier for every sample, as a server keeps one,
        // its caches filled by the first. (A fresh verifier per sample times the call right after
        // a cold one, with the allocator and caches still churned by it: BENCHMARKS.md.)
        let warmVerifier = SignedDataVerifier(anchor: anchor)
        for (label, capacity) in [("warm", ReceiptVerifier.defaultChainCacheCapacity), ("cold", 0)] {
            Benchmark("JWS verify+decode \(label)/\(token.name)") { benchmark in
                let verifier = capacity > 0 ? warmVerifier : SignedDataVerifier(anchor: anchor, chainCacheCapacity: 0)
                _ = try verifier.verifyTransaction(bytes)  // and, warm, the chain remembered
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { blackHole(try verifier.verifyTransaction(bytes)) }
            }
        }
        let floors: [(name: String, check: @Sendable (OpaquePointer) -> Int32)] = [
            ("C ES256 only", { floor_jws_warm($0) }), ("C x5c verify", { floor_jws_cold($0) }),
        ]
        let floor = FloorHandle(token.floor())  // the leaf's key loaded once, as warm verification keeps it
        for (name, check) in floors {
            Benchmark("\(name)/\(token.name)") { benchmark in
                let floor = floor.pointer
                precondition(check(floor) == 1, "\(name): the token does not verify")
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { precondition(check(floor) == 1) }
            }
        }
        #if JWTKitPeer
        jwtKitBenchmark(token: token, root: root, anchor: anchor)
        #endif
        // A ledger's snapshot read back, as GET /v1/users/{user}/entitlements reads one per
        // transaction held: members in the writer's key order, read in the order Apple signs them.
        let snapshot = try! SignedDataVerifier(anchor: anchor).verifyTransaction(bytes).snapshotBytes
        Benchmark("Snapshot read/\(token.name)") { benchmark in
            let first = try SignedTransaction(snapshotBytes: snapshot)
            precondition(first.snapshotBytes == snapshot, "the snapshot does not read back")
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(try SignedTransaction(snapshotBytes: snapshot)) }
        }
    }

    // A notification with a nested transaction and renewal info: three tokens, one chain.
    let notification = jws.appendingPathComponent("notification-subscribed.jws")
    if let data = try? Data(contentsOf: notification) {
        let bytes = [UInt8](data)
        let anchor = try! TrustAnchor.appStore(rootCertificate: testRoot)
        let verifier = SignedDataVerifier(anchor: anchor)
        Benchmark("JWS notification warm/test notification") { benchmark in
            _ = try verifier.verifyNotification(bytes)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(try verifier.verifyNotification(bytes)) }
        }
    }
}
