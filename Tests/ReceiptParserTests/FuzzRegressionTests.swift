import Foundation
import Testing
import ReceiptParser
import FuzzHarness
import ReceiptTestSupport

/// Replays Fuzz/regressions: every input that ever crashed a fuzz target, and hostile inputs
/// built by hand, each through the same code as its target (the FuzzHarness target, which
/// the fuzz targets call) and each with the outcome recorded in Fuzz/regressions/MANIFEST.
struct FuzzRegressionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let target: FuzzTarget
        let name: String
        let expected: String
        var testDescription: String { "\(target.rawValue)/\(name)" }
        var url: URL { FuzzRegressionTests.folder.appendingPathComponent("\(target.rawValue)/\(name)") }
    }

    static let folder = Paths.repository.appendingPathComponent("Fuzz/regressions")

    /// MANIFEST lines: `<target>/<file> <outcome>`; `#` starts a comment.
    static let cases: [Case] = {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("MANIFEST"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> Case? in
            let content = line.prefix { $0 != "#" }.split(separator: " ", omittingEmptySubsequences: true)
            guard content.count == 2 else { return nil }
            let path = content[0].split(separator: "/", maxSplits: 1)
            guard path.count == 2, let target = FuzzTarget(rawValue: String(path[0])) else { return nil }
            return Case(target: target, name: String(path[1]), expected: String(content[1]))
        }
    }()

    static let harness: FuzzHarness? = try? FuzzHarness(testRoot: pki("test-root.der"))

    @Test func everyRegressionInputHasARecordedOutcome() throws {
        let recorded = Set(Self.cases.map(\.testDescription))
        #expect(recorded.count == Self.cases.count, "a MANIFEST entry is listed twice")
        var files: [String] = []
        for target in FuzzTarget.allCases {
            let folder = Self.folder.appendingPathComponent(target.rawValue)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            files += names.map { "\(target.rawValue)/\($0)" }
        }
        #expect(files.count >= 30)
        for file in files.sorted() {
            #expect(recorded.contains(file), "Fuzz/regressions/\(file) has no outcome in Fuzz/regressions/MANIFEST")
        }
        for entry in recorded.sorted() {
            #expect(files.contains(entry), "Fuzz/regressions/MANIFEST lists \(entry), which does not exist")
        }
    }

    @Test(arguments: cases)
    func replaysWithItsRecordedOutcome(_ item: Case) throws {
        let harness = try #require(Self.harness)
        let bytes = [UInt8](try Data(contentsOf: item.url))
        #expect(harness.run(item.target, bytes) == item.expected)
    }

    /// The render target's rules (display text, one summary line, the size budget, JSON that
    /// parses) over every generated fixture, hostile ones included; a broken rule stops the
    /// process (fatalError), as in the fuzzer. The outcome is receipt-dump's exit status.
    @Test func theRenderTargetKeepsItsRulesOverEveryFixture() throws {
        let harness = try #require(Self.harness)
        var outcomes: [String: String] = [:]
        for folder in ["receipts", "hostile"] {
            let url = Paths.fixtures.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where name != "SHA256SUMS" {
                outcomes["\(folder)/\(name)"] = harness.run(.render, [UInt8](try Data(contentsOf: url.appendingPathComponent(name))))
            }
        }
        #expect(outcomes.count > 50)
        #expect(outcomes["receipts/sample.receipt"] == "exit0")
        #expect(outcomes["receipts/tampered-signature.receipt"] == "exit1")
        #expect(outcomes["hostile/terminal-escapes.receipt"] == "exit0")
        #expect(outcomes["hostile/certificate-bomb.receipt"] == "exit1")
        #expect(outcomes["hostile/bad-date-escapes.receipt"] == "exit2")
        #expect(outcomes["hostile/duplicate-receipt-data.json"] == "exit2")
    }
}
