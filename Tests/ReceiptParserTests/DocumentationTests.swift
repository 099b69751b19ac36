import Foundation
import Testing

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

    /// Files made by running things (builds, generated benchmark receipts, the fuzzers' working
    /// corpus), which documentation may name but the repository does not hold.
    static let madeByRunning = [".build/", "Benchmarks/.receipts", "Fuzz/corpus", "Fuzz/artifacts"]

    @Test func documentationNamesOnlyFilesThatExist() throws {
        let repository = Self.sources.deletingLastPathComponent().deletingLastPathComponent()
        let documents = ["README.md", "BENCHMARKS.md", "TestReceipts/README.md",
                         "Sources/ReceiptParser/ReceiptParser.docc/ReceiptParser.md",
                         "Sources/ReceiptParser/ReceiptParser.docc/VerifyingReceiptsOnAServer.md",
                         "Sources/ReceiptParser/ReceiptParser.docc/AcceptingData.md"]
        let path = try Regex(#"(?:^|[\s`(])((?:Sources|Server|Fuzz|Benchmarks|TestReceipts|Tests|scripts|\.ci)/[A-Za-z0-9_./+-]*[A-Za-z0-9_/-])"#)
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
