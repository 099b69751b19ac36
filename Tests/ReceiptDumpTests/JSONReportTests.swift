import Foundation
import Testing
import ReceiptParser
import ReceiptReports
import FuzzHarness
import ReceiptTestSupport

/// `--format json` is written by JSONWriter, straight into one buffer, from the members each
/// model lists. The text must stay the one JSONEncoder gives for the `Codable` result, byte for
/// byte: the same keys, order, layout, numbers, dates and escapes.
struct JSONReportTests {
    /// The report as JSONEncoder makes it: the whole result through one JSONEncoder, then the
    /// invisible characters it leaves raw escaped.
    static func encodedInOneGo(_ result: some Encodable, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        return FuzzHarness.escapingActiveScalars(in: String(decoding: try encoder.encode(result), as: UTF8.self))
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

    /// `entries` in-app purchases of `attributes` empty attributes each, a receipt shaped to make the
    /// JSON writer work hard (at a size a unit test can afford).
    static func manyAttributes(entries: Int, attributes: Int) throws -> [UInt8] {
        let entry = DER.attribute(17, DER.set(Array(repeating: DER.attribute(99, DER.octets([])), count: attributes)))
        return try HostileOutputTests.forged(DER.set([DER.attribute(12, DER.ia5("2025-06-01T12:00:00Z"))]
                                                     + Array(repeating: entry, count: entries)))
    }

    /// The fixtures, and forged receipts: attacker strings (invisible characters JSONEncoder
    /// leaves raw, in the purchases and around them), empty purchases (empty containers), and
    /// purchases of many attributes.
    static func inputs() throws -> [(name: String, bytes: [UInt8])] {
        var inputs = try fixtureFiles().map { ($0, [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent($0)))) }
        for (index, text) in HostileOutputTests.hostileStrings.enumerated() {
            inputs.append(("forged/strings-\(index).receipt", try HostileOutputTests.receiptWithStrings(text)))
        }
        inputs.append(("forged/wide-cells.receipt", try HostileOutputTests.wideCells(width: 300, entries: 20)))
        inputs.append(("forged/many-attributes.receipt", try manyAttributes(entries: 3, attributes: 2_000)))
        return inputs
    }

    @Test func writtenReportIsTheOneJSONEncoderGives() throws {
        let verifier = try testRootVerifier()
        var withPurchases = 0
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
                    Self.expectSameBytes(JSONReport.render(result, layout: .compact), try Self.encodedInOneGo(result, pretty: false), what + ", compact")
                    let renderer = Renderer(format: .json, style: Style(enabled: false), showDetails: details,
                                            statusTime: Date(), expectedEnvironment: nil)
                    Self.expectSameBytes(renderer.render(result), expected, what + ", through Renderer")
                    if narrowed { #expect(result.receipt?.inAppPurchases.isEmpty ?? true, "\(what): the filter leaves no purchase") }
                    withPurchases += result.receipt?.inAppPurchases.isEmpty == false ? 1 : 0
                }
            }
        }
        #expect(withPurchases >= 40, "only \(withPurchases) reports had purchases")
    }

    /// Several inputs give one JSON array: indented, the text JSONEncoder gives for the array of
    /// results; compact (the layout when the output is not a terminal), one document per line,
    /// each JSONEncoder's compact text.
    @Test func multiFileOutputIsTheArrayOfDocumentsEncodedInOneGo() throws {
        let files = try Self.fixtureFiles()
        let verifier = try testRootVerifier()
        for details in [false, true] {
            var settings = DumpSettings()
            settings.verifier = verifier
            settings.wantsCertificateDetails = details
            let results = try files.map { file in
                DumpResult.make(name: file, loaded: .success([UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent(file)))), settings: settings)
            }
            let certs = details ? ["--certs"] : []
            let run = try ReceiptDumpTests().run(["--format", "json", "--json-layout", "indented", "--root", "pki/test-root.der"] + certs + files)
            Self.expectSameBytes(run.output, try Self.encodedInOneGo(results) + "\n", "receipt-dump --format json --json-layout indented, \(files.count) files, --certs \(details)")
            let compact = try results.map { try Self.encodedInOneGo($0, pretty: false) }
            let piped = try ReceiptDumpTests().run(["--format", "json", "--root", "pki/test-root.der"] + certs + files)
            Self.expectSameBytes(piped.output, "[\n" + compact.joined(separator: ",\n") + "\n]\n", "receipt-dump --format json (not a terminal), \(files.count) files, --certs \(details)")

            // One input: its document and a line feed.
            let sample = "receipts/sample.receipt"
            let sampleResult = DumpResult.make(name: sample, loaded: .success(try fixture("sample.receipt")), settings: settings)
            let single = try ReceiptDumpTests().run(["--format", "json", "--json-layout", "indented", "--root", "pki/test-root.der"] + certs + [sample])
            Self.expectSameBytes(single.output, try Self.encodedInOneGo(sampleResult) + "\n", "receipt-dump --format json \(sample), --certs \(details)")
            let singlePiped = try ReceiptDumpTests().run(["--format", "json", "--root", "pki/test-root.der"] + certs + [sample])
            Self.expectSameBytes(singlePiped.output, try Self.encodedInOneGo(sampleResult, pretty: false) + "\n", "receipt-dump --format json \(sample) (not a terminal), --certs \(details)")
        }
    }

    /// `DumpResult`'s `Encodable` is `--format json` for StoreKit 2 tokens too (it once wrote a
    /// receipt's members only: no `tokens`, a `certificates` array instead): every token fixture,
    /// bare or in a JSON body, gives the same JSON value both ways.
    @Test func encodableTokensResultIsTheJSONFormat() throws {
        var settings = DumpSettings()
        settings.verifier = try testRootVerifier()
        let root = [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("pki/jws-root.der")))
        settings.signedDataVerifier = SignedDataVerifier(anchor: try .appStore(rootCertificate: root))
        let folder = Paths.fixtures.appendingPathComponent("jws")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".jws") || $0.hasSuffix(".json") }.sorted()
        #expect(files.count > 20)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(file)))
            let result = DumpResult.make(name: "jws/\(file)", loaded: .success(bytes), settings: settings)
            guard result.tokens != nil else { continue }  // a body that holds no token reads as a receipt
            let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as? NSDictionary
            let written = try JSONSerialization.jsonObject(with: Data(JSONReport.render(result, layout: .compact).utf8)) as? NSDictionary
            #expect(encoded != nil && encoded == written, "\(file)")
            #expect(encoded?["tokens"] != nil, "\(file)")
        }
    }
}
