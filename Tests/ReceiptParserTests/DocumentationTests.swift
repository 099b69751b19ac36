import Foundation
import Testing
import ReceiptTestSupport

/// The reference documentation stays complete: every public type of the library is listed in
/// the DocC catalogue's topics, so none is left for readers to stumble on.
struct DocumentationTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/ReceiptParser")

    /// Top-level public types, by name, from the library's sources.
    static func publicTypes() throws -> Set<String> {
        var names: Set<String> = []
        let pattern = try Regex(#"^public (?:final )?(?:struct|enum|class|protocol|actor) ([A-Za-z0-9_]+)"#).anchorsMatchLineEndings()
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: pattern) {
                names.insert(String(match.output[1].substring!))
            }
        }
        return names
    }

    @Test func everyPublicTypeIsInTheTopics() throws {
        let catalogue = try String(contentsOf: Self.sources.appendingPathComponent("ReceiptParser.docc/ReceiptParser.md"), encoding: .utf8)
        let types = try Self.publicTypes()
        #expect(types.count > 20)  // the scan found the sources
        let missing = types.filter { !catalogue.contains("``\($0)``") }.sorted()
        #expect(missing.isEmpty, "public types missing from ReceiptParser.docc/ReceiptParser.md: \(missing)")
    }

    /// Every page of the manual, by its path in the repository: each is reachable from the README
    /// and names only files that exist.
    static let pages = ["README.md", "BENCHMARKS.md", "TestReceipts/README.md", "Server/README.md",
                        "docs/library.md", "docs/receipt-dump.md", "docs/fuzzing.md", "docs/architecture.md",
                        "Sources/ReceiptParser/ReceiptParser.docc/ReceiptParser.md",
                        "Sources/ReceiptParser/ReceiptParser.docc/VerifyingReceiptsOnAServer.md",
                        "Sources/ReceiptParser/ReceiptParser.docc/AcceptingData.md"]

    static var repository: URL { sources.deletingLastPathComponent().deletingLastPathComponent() }

    /// The README is the front door, not the manual: short, and every page of the manual is one
    /// link away from it (the DocC catalogue is named by its folder).
    @Test func readmeIsAFrontDoorToEveryPage() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let lineCount = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lineCount <= 200, "README.md has \(lineCount) lines; the manual belongs in docs/ and Server/README.md")
        for page in Self.pages where page != "README.md" {
            let named = page.hasPrefix("Sources/") ? "Sources/ReceiptParser/ReceiptParser.docc" : page
            #expect(readme.contains(named), "README.md does not lead to \(page)")
        }
        let pagesOnDisk = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/\($0)" }
        #expect(Set(pagesOnDisk).isSubset(of: Set(Self.pages)), "a page in docs/ is not in DocumentationTests.pages")
    }

    /// Relative links between the pages (`[text](path#anchor)`) lead to files that exist.
    @Test func linksBetweenPagesResolve() throws {
        let link = try Regex(#"\]\(([^)#:\s]+)(?:#[^)]*)?\)"#)
        var checked = 0
        for page in Self.pages {
            let url = Self.repository.appendingPathComponent(page)
            let text = try String(contentsOf: url, encoding: .utf8)
            for match in text.matches(of: link) {
                let target = url.deletingLastPathComponent().appendingPathComponent(String(match.output[1].substring!))
                checked += 1
                #expect(FileManager.default.fileExists(atPath: target.standardizedFileURL.path), "\(page) links to \(match.output[1].substring!), which does not exist")
            }
        }
        #expect(checked > 15)
    }

    /// Files made by running things (builds, generated benchmark receipts, the fuzzers' working
    /// corpus), which documentation may name but the repository does not hold.
    static let madeByRunning = [".build/", "Benchmarks/.receipts", "Fuzz/corpus", "Fuzz/artifacts"]

    @Test func documentationNamesOnlyFilesThatExist() throws {
        let repository = Self.repository
        let documents = Self.pages
        let path = try Regex(#"(?:^|[\s`(])((?:Sources|Server|Fuzz|Benchmarks|TestReceipts|Tests|scripts|docs|\.ci)/[A-Za-z0-9_./+-]*[A-Za-z0-9_/-])"#)
        var checked = 0
        for document in documents {
            let text = try String(contentsOf: repository.appendingPathComponent(document), encoding: .utf8)
            for match in text.matches(of: path) {
                let named = String(match.output[1].substring!)
                guard !Self.madeByRunning.contains(where: { named.contains($0) }) else { continue }
                checked += 1
                #expect(FileManager.default.fileExists(atPath: repository.appendingPathComponent(named).path),
                        "\(document) names \(named), which is not in the repository")
            }
        }
        #expect(checked > 30)  // the scan found the map and the commands
    }
}
