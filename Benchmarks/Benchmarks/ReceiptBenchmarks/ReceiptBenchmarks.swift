// ReceiptParser benchmarks. Run from Benchmarks/ (see ../BENCHMARKS.md):
//
//     python3 scripts/generate-receipts.py
//     swift package --disable-sandbox benchmark
//
// Groups, each over the generated receipts with 1, 10, 100, 1 000 and 10 000 in-app entries:
//   Decode            ReceiptPayloadDecoder.decode of the payload (typed models)
//   Decode swift-asn1 the same typed decode on apple/swift-asn1's DER parser
//   C raw walk        a C walk of the payload's DER touching every byte (the floor for decode)
//   Container         ReceiptContainer.parse (the PKCS #7 envelope)
//   Verify cold       parse + verify, chain cache disabled
//   Verify warm       parse + verify, chain cache warm
//   Verify+decode cold / warm   ReceiptVerifier.verifyAndDecode from bytes
//   C d2i_PKCS7, C PKCS7_verify (d2i + verify), C signature only (key loaded)
//   JSON typed        JSONWriter, compact: the decoded receipt's JSON (raw attributes too)
//   JSON verifyreceipt JSONWriter, compact: Apple's verifyReceipt answer for the verified receipt
//   JSONEncoder typed  Foundation's JSONEncoder.receiptModels() for the same text: the Encodable
//                      path, which replays JSONWriter's text (written, parsed, encoded again)
//                      since the writer became the models' one JSON definition; figures before
//                      that are of synthesized Codable
// and over the real corpus in ../../shared/corpus/real (when present). StoreKit 2 tokens
// (JWS verify+decode, C ES256 only, C x5c verify, jwt-kit X5CVerifier): TokenBenchmarks.swift.
import Benchmark
import CFloor
import Foundation
@_spi(Benchmarks) import ReceiptParser
import SwiftASN1

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .microseconds,
        warmupIterations: 3,
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )

    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()   // Benchmarks/Benchmarks/ReceiptBenchmarks
    let package = here.deletingLastPathComponent().deletingLastPathComponent()  // Benchmarks/
    let repository = package.deletingLastPathComponent()
    let generated = package.appendingPathComponent(".receipts")
    let testRoot = (try? Data(contentsOf: repository.appendingPathComponent("TestReceipts/pki/test-root.der"))).map { [UInt8]($0) } ?? []
    let anchor = try! TrustAnchor.appStore(rootCertificate: testRoot)
    // 2025-06-01T12:00:00Z, the generated receipts' creation date, for OpenSSL's store.
    let creation: Int64 = 1_748_779_200

    for count in [1, 10, 100, 1000, 10000] {
        let url = generated.appendingPathComponent("inapp-\(count).receipt")
        guard let data = try? Data(contentsOf: url) else {
            fatalError("missing \(url.path): run python3 scripts/generate-receipts.py first")
        }
        let bytes = [UInt8](data)
        let container = try! ReceiptContainer.parse(bytes)
        let payload = container.payload
        let name = "\(count) in-app"
        let small = count <= 10

        Benchmark("Decode/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try ReceiptPayloadDecoder.decode(payload)) }
        }
        Benchmark("JSON typed/\(name)") { benchmark in
            let receipt = try ReceiptPayloadDecoder.decode(payload)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                var json = JSONWriter(capacity: 4096)
                receipt.write(to: &json)
                blackHole(json.finish())
            }
        }
        Benchmark("JSON verifyreceipt/\(name)") { benchmark in
            let verified = try ReceiptVerifier(anchor: anchor).verifyAndDecode(bytes)
            let requestDate = Date(timeIntervalSince1970: Double(creation))
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                var json = JSONWriter(capacity: 4096)
                VerifyReceiptResponse.write(for: .success(verified), requestDate: requestDate, to: &json)
                blackHole(json.finish())
            }
        }
        Benchmark("JSONEncoder typed/\(name)") { benchmark in
            let receipt = try ReceiptPayloadDecoder.decode(payload)
            let encoder = JSONEncoder.receiptModels()
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(try encoder.encode(receipt)) }
        }
        Benchmark("Decode swift-asn1/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try SwiftASN1Decoder.decode(payload)) }
        }
        Benchmark("C raw walk/\(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(payload.withUnsafeBufferPointer { floor_raw_walk($0.baseAddress!, $0.count) })
            }
        }
        Benchmark("Container/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try ReceiptContainer.parse(bytes)) }
        }
        Benchmark("Verify cold/\(name)") { benchmark in
            let verifier = ReceiptVerifier(anchor: anchor, chainCacheCapacity: 0)
            for _ in benchmark.scaledIterations { blackHole(try verifier.verify(ReceiptContainer.parse(bytes))) }
        }
        Benchmark("Verify warm/\(name)") { benchmark in
            let verifier = ReceiptVerifier(anchor: anchor)
            _ = try verifier.verify(ReceiptContainer.parse(bytes))
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(try verifier.verify(ReceiptContainer.parse(bytes))) }
        }
        Benchmark("Verify+decode cold/\(name)") { benchmark in
            let verifier = ReceiptVerifier(anchor: anchor, chainCacheCapacity: 0)
            for _ in benchmark.scaledIterations { blackHole(try verifier.verifyAndDecode(bytes)) }
        }
        Benchmark("Verify+decode warm/\(name)") { benchmark in
            let verifier = ReceiptVerifier(anchor: anchor)
            _ = try verifier.verifyAndDecode(bytes)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { blackHole(try verifier.verifyAndDecode(bytes)) }
        }
        if small || count == 10000 {
            Benchmark("C d2i_PKCS7/\(name)") { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(bytes.withUnsafeBufferPointer { floor_d2i_pkcs7($0.baseAddress!, $0.count) })
                }
            }
        }
        Benchmark("C PKCS7_verify/\(name)") { benchmark in
            let store = testRoot.withUnsafeBufferPointer { floor_store_new($0.baseAddress!, $0.count, creation) }!
            defer { floor_store_free(store) }
            for _ in benchmark.scaledIterations {
                let ok = bytes.withUnsafeBufferPointer { floor_pkcs7_verify(store, $0.baseAddress!, $0.count) }
                precondition(ok == 1, "PKCS7_verify failed")
            }
        }
        Benchmark("C signature only/\(name)") { benchmark in
            let signature = bytes.withUnsafeBufferPointer { floor_signature_new($0.baseAddress!, $0.count) }!
            defer { floor_signature_free(signature) }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { precondition(floor_signature_verify(signature) == 1) }
        }
    }

    tokenBenchmarks(repository: repository)

    // The real corpus: 43 receipts, decoded and verified as a batch per iteration.
    let corpus = repository.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent("real").path)) ?? []
    let receipts: [(xcode: Bool, bytes: [UInt8])] = files.filter { $0.hasSuffix(".receipt") }.sorted().compactMap { file in
        guard let data = try? Data(contentsOf: corpus.appendingPathComponent("real/\(file)")) else { return nil }
        return (file.hasPrefix("xcode-"), [UInt8](data))
    }
    guard !receipts.isEmpty else {
        print("note: \(corpus.path)/real is missing; the corpus benchmarks are skipped")
        return
    }
    let storeKitCertificate = (try? Data(contentsOf: corpus.appendingPathComponent("certs/StoreKitTestCertificate.der"))).map { [UInt8]($0) } ?? []
    let storeKit = try! TrustAnchor.storeKitTesting(certificate: storeKitCertificate)
    let payloads = receipts.map { try! ReceiptContainer.parse(ReceiptInput.receiptBytes(from: $0.bytes)).payload }
    let corpusName = "corpus (\(receipts.count) receipts)"

    Benchmark("Decode/\(corpusName)") { benchmark in
        for _ in benchmark.scaledIterations {
            for payload in payloads { blackHole(try ReceiptPayloadDecoder.decode(payload)) }
        }
    }
    Benchmark("Decode swift-asn1/\(corpusName)") { benchmark in
        for _ in benchmark.scaledIterations {
            for payload in payloads { blackHole(try SwiftASN1Decoder.decode(payload)) }
        }
    }
    Benchmark("C raw walk/\(corpusName)") { benchmark in
        for _ in benchmark.scaledIterations {
            for payload in payloads { blackHole(payload.withUnsafeBufferPointer { floor_raw_walk($0.baseAddress!, $0.count) }) }
        }
    }
    for (label, capacity) in [("cold", 0), ("warm", ReceiptVerifier.defaultChainCacheCapacity)] {
        Benchmark("Verify+decode \(label)/\(corpusName)") { benchmark in
            let apple = ReceiptVerifier(chainCacheCapacity: capacity)
            let xcode = ReceiptVerifier(anchor: storeKit, chainCacheCapacity: capacity)
            func all() {
                for receipt in receipts { blackHole(try? (receipt.xcode ? xcode : apple).verifyAndDecode(receipt.bytes)) }
            }
            if capacity > 0 { all() }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { all() }
        }
    }
}
