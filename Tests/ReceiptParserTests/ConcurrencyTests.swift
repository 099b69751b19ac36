import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// One verifier shared by many OS threads at once: the same verdicts as one thread, and (under
/// `scripts/sanitizers`, which runs this with ThreadSanitizer) no data race in the verifier or
/// the OpenSSL shim. Needs only TestReceipts, unlike CorpusTests.manyThreadsVerifyTheCorpusAtOnce.
struct ConcurrencyTests {
    @Test func manyThreadsVerifyTheFixturesAtOnce() throws {
        let verifier = try testRootVerifier()
        let folder = Paths.fixtures.appendingPathComponent("receipts")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".receipt") || $0.hasSuffix(".b64") || $0.hasSuffix(".json") }.sorted()
        let inputs = try names.map { [UInt8](try Data(contentsOf: folder.appendingPathComponent($0))) }
        #expect(inputs.count >= 25)

        @Sendable func verdicts() -> [String] {
            inputs.map { input in
                do throws(ReceiptError) {
                    let verified = try verifier.verifyAndDecode(input)
                    return "ok \(verified.receipt.attributes.count) \(verified.verification.chain.map(\.sha256))"
                } catch {
                    return error.code.name
                }
            }
        }
        let serial = verdicts()
        #expect(serial.contains { $0.hasPrefix("ok") })
        #expect(serial.contains("signatureInvalid"))

        // Real threads, not tasks: the cooperative pool has only as many threads as cores.
        let threadCount = 16
        final class Results: @unchecked Sendable {  // guarded by lock
            let lock = NSLock()
            var runs: [[String]] = []
        }
        let results = Results()
        let done = DispatchGroup()
        for _ in 0..<threadCount {
            done.enter()
            let thread = Thread {
                var runs: [[String]] = []
                for _ in 0..<5 { runs.append(verdicts()) }
                results.lock.withLock { results.runs += runs }
                done.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        done.wait()
        let all = results.lock.withLock { results.runs }
        #expect(all.count == threadCount * 5)
        for run in all { #expect(run == serial) }
    }
}
