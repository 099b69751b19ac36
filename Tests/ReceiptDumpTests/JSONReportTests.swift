import Foundation
import Testing
import ReceiptParser
import ReceiptReports

/// `--format json` encodes the in-app purchases one at a time and splices them into the result
/// encoded without them (JSONReport.spliced), so JSONEncoder never holds every raw attribute of
/// a receipt at once. The text must stay the one JSONEncoder gives for the whole result, byte
/// for byte.
struct JSONReportTests {
    /// The report as it was made before splicing: the whole result through one JSONEncoder,
    /// then the invisible characters it leaves raw escaped.
    static func encodedInOneGo(_ result: DumpResult) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        return JSONValue.escapingInvisibleCharacters(in: String(decoding: try encoder.encode(result), as: UTF8.self))
    }

    /// Expects the same bytes (String's == would accept canonically equivalent text), and
    /// says where they first differ.
    static func expectSameBytes(_ found: String, _ expected: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let (found, expected) = (Array(found.utf8), Array(expected.utf8))
        guard found != expected else { return }
        let offset = zip(found, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(found.count, expected.count)
        let context = { (bytes: [UInt8]) in String(decoding: bytes[max(0, offset - 80)..<min(bytes.count, offset + 80)], as: UTF8.self) }
        Issue.record("\(what): \(found.count) bytes, expected \(expected.count); first difference at \(offset):\n\(context(found))\n---- expected:\n\(context(expected))",
                     sourceLocation: sourceLocation)
    }

    /// Every file of TestReceipts/receipts and TestReceipts/hostile, by its path there.
    static func fixtureFiles() throws -> [String] {
        try ["receipts", "hostile"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: Paths.fixtures.appendingPathComponent(folder).path)
                .filter { !$0.hasPrefix(".") }.sorted().map { "\(folder)/\($0)" }
        }
    }

    /// `entries` in-app purchases of `attributes` empty attributes each, as gen5.py makes them
    /// (at a size a unit test can afford).
    static func manyAttributes(entries: Int, attributes: Int) throws -> [UInt8] {
        let entry = DER.attribute(17, DER.set(Array(repeating: DER.attribute(99, DER.octets([])), count: attributes)))
        return try HostileOutputTests.forged(DER.set([DER.attribute(12, DER.ia5("2025-06-01T12:00:00Z"))]
                                                     + Array(repeating: entry, count: entries)))
    }

    /// The fixtures, and forged receipts: attacker strings (invisible characters JSONEncoder
    /// leaves raw, in the purchases and around them), empty purchases (a blank line inside a
    /// spliced part), and purchases of many attributes.
    static func inputs() throws -> [(name: String, bytes: [UInt8])] {
        var inputs = try fixtureFiles().map { ($0, [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent($0)))) }
        for (index, text) in HostileOutputTests.hostileStrings.enumerated() {
            inputs.append(("forged/strings-\(index).receipt", try HostileOutputTests.receiptWithStrings(text)))
        }
        inputs.append(("forged/wide-cells.receipt", try HostileOutputTests.wideCells(width: 300, entries: 20)))
        inputs.append(("forged/many-attributes.receipt", try manyAttributes(entries: 3, attributes: 2_000)))
        return inputs
    }

    @Test func splicedReportIsTheOneEncodedInOneGo() throws {
        let verifier = try testRootVerifier()
        var splicedCount = 0
        for input in try Self.inputs() {
            for details in [false, true] {
                for narrowed in [false, true] {
                    var settings = DumpSettings()
                    settings.verifier = verifier
                    settings.wantsCertificateDetails = details
                    if narrowed { settings.productFilter = ExactIdentifier("no.such.product") }
                    let result = DumpResult.make(name: input.name, loaded: .success(input.bytes), settings: settings)
                    let what = "\(input.name), certificate details \(details), purchases filtered out \(narrowed)"
                    let expected = try Self.encodedInOneGo(result)
                    Self.expectSameBytes(JSONReport.render(result), expected, what)
                    let renderer = Renderer(format: .json, style: Style(enabled: false), showDetails: details,
                                            statusTime: Date(), expectedEnvironment: nil)
                    Self.expectSameBytes(renderer.render(result), expected, what + ", through Renderer")
                    // The purchases are spliced in whenever there are some: the single-shot
                    // fallback is not what makes the texts equal.
                    let hasPurchases = !(result.receipt?.inAppPurchases.isEmpty ?? true)
                    let spliced = JSONReport.spliced(result)
                    #expect((spliced != nil) == hasPurchases, "\(what): spliced \(spliced != nil), purchases \(hasPurchases)")
                    if let spliced {
                        Self.expectSameBytes(spliced, expected, what + ", spliced")
                        splicedCount += 1
                    }
                    if narrowed { #expect(!hasPurchases, "\(what): the filter leaves no purchase") }
                }
            }
        }
        #expect(splicedCount >= 40, "only \(splicedCount) reports had purchases to splice")
    }

    /// Several inputs give one JSON array, each document indented by 2 (receipt-dump's
    /// Renderer.write): the same text as indenting the documents encoded in one go.
    @Test func multiFileOutputIsTheArrayOfDocumentsEncodedInOneGo() throws {
        let files = try Self.fixtureFiles()
        let verifier = try testRootVerifier()
        for details in [false, true] {
            var settings = DumpSettings()
            settings.verifier = verifier
            settings.wantsCertificateDetails = details
            let documents = try files.map { file in
                try Self.encodedInOneGo(DumpResult.make(name: file, loaded: .success([UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent(file)))),
                                                        settings: settings))
            }
            let items = documents.map { "  " + $0.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  ") }
            let expected = "[\n" + items.joined(separator: ",\n") + "\n]\n"
            let run = try ReceiptDumpTests().run(["--format", "json", "--root", "pki/test-root.der"] + (details ? ["--certs"] : []) + files)
            Self.expectSameBytes(run.output, expected, "receipt-dump --format json, \(files.count) files, --certs \(details)")

            // One input: its document and a line feed.
            let sample = "receipts/sample.receipt"
            let single = try ReceiptDumpTests().run(["--format", "json", "--root", "pki/test-root.der"] + (details ? ["--certs"] : []) + [sample])
            let document = try Self.encodedInOneGo(DumpResult.make(name: sample, loaded: .success(try fixture("sample.receipt")), settings: settings))
            Self.expectSameBytes(single.output, document + "\n", "receipt-dump --format json \(sample), --certs \(details)")
        }
    }
}
