import Foundation
import Testing
@testable import ReceiptParser
import ReceiptReports
#if canImport(Glibc)
import Glibc
import ReceiptTestSupport
#endif

/// Forged receipts whose strings and shapes are chosen by an attacker, through every format of
/// receipt-dump: no raw control character reaches the reader, `--format summary` stays one
/// line per input, and output, memory and time stay proportional to the input.
struct HostileOutputTests {
    static let formats = ["text", "json", "verifyreceipt", "asn1", "summary"]

    /// Writes `bytes` to a new temporary file and returns its path.
    func temporaryFile(_ bytes: [UInt8], name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// The budget of the issue: output ≤ 100 bytes per input byte + 64 KiB.
    func expectOutputWithinBudget(_ output: String, input: Int, _ what: String) {
        #expect(output.utf8.count <= 100 * input + 65_536, "\(what): \(output.utf8.count) bytes of output for \(input) of input")
    }

    func expectNoRawControls(_ output: String, _ what: String, layout: Set<Unicode.Scalar> = ["\n"]) {
        // Only the tool's own layout (newlines; tabs between summary fields) may appear.
        let raw = output.unicodeScalars.first { !layout.contains($0) && Expected.dangerousScalars.contains($0) }
        #expect(raw == nil, "\(what): U+\(String(raw?.value ?? 0, radix: 16)) reached the output raw")
    }

    /// Strings chosen to repaint a terminal, forge a line, or reorder text.
    static let hostileStrings = [
        "\u{1B}[2J\u{1B}[H\u{1B}[32mVERIFIED\u{1B}[0m\u{1B}[8m",
        "cases/other.der\tverified\tcom.example.other\tProduction\t0 in-app\nsecond line",
        "\r  Verdict:                      VERIFIED (appStore)\u{7}\u{7F}\u{9B}31m",
        "com.example.\u{202E}gnp.exe\u{2066}\u{2069}\u{200B}\u{FEFF}\u{2028}",
    ]

    /// A forged receipt whose every displayed string attribute holds `text`.
    static func receiptWithStrings(_ text: String) throws -> [UInt8] {
        let entry = DER.set([
            DER.attribute(1701, DER.integer(1)),
            DER.attribute(1702, DER.utf8("product" + text)),
            DER.attribute(1703, DER.utf8("1000" + text)),
            DER.attribute(1705, DER.utf8("1000" + text)),
            DER.attribute(1704, DER.ia5("2025-05-01T10:00:00Z")),
            DER.attribute(1708, DER.ia5("2099-05-01T10:00:00Z")),
            DER.attribute(1721, DER.utf8("offer" + text)),
            DER.attribute(1799, DER.utf8("unknown" + text)),
        ])
        let payload = DER.set([
            DER.attribute(0, DER.utf8("Production" + text)),
            DER.attribute(2, DER.utf8("com.example" + text)),
            DER.attribute(3, DER.utf8("1.0" + text)),
            DER.attribute(10, DER.utf8("4+" + text)),
            DER.attribute(12, DER.ia5("2025-06-01T12:00:00Z")),
            DER.attribute(17, entry),
            DER.attribute(19, DER.utf8("0.9" + text)),
            DER.attribute(99, DER.utf8(text)),
        ])
        return try forged(payload)
    }

    /// `payload` in the sample's envelope with its certificates and a signature that is not one.
    static func forged(_ payload: [UInt8]) throws -> [UInt8] {
        let sample = try ReceiptContainer.parse(fixture("sample.receipt"))
        guard case .issuerAndSerialNumber(let issuer, let serial) = try #require(sample.signers.first).identifier else {
            throw ReceiptError(.signerNotFound, "the sample names its signer by issuer and serial")
        }
        return DER.receipt(payload: payload, certificates: sample.certificates.map { Array($0) },
                           issuer: Array(issuer), serial: Array(serial), signature: Array(repeating: 0x42, count: 256))
    }

    /// One product identifier of `width` characters and `entries` empty in-app purchases: a
    /// table padded to its widest cell used to print width × entries bytes.
    static func wideCells(width: Int, entries: Int) throws -> [UInt8] {
        let wide = DER.attribute(17, DER.set([DER.attribute(1702, DER.utf8(String(repeating: "w", count: width)))]))
        let empty = DER.attribute(17, DER.set([]))
        return try forged(DER.set([DER.attribute(12, DER.ia5("2025-06-01T12:00:00Z")), wide]
                                  + Array(repeating: empty, count: entries)))
    }

    /// Attribute SETs nested `depth` levels inside one attribute, built from the inside out
    /// (DER lengths precede their content, so each level is a prefix).
    static func nestedSets(depth: Int) throws -> [UInt8] {
        var prefixes: [[UInt8]] = []
        var size = 2  // the innermost SET, empty: 31 00
        for _ in 0..<depth {
            let octets = 1 + DER.length(size).count + size
            let fields = 3 + 3 + octets
            let sequence = 1 + DER.length(fields).count + fields
            prefixes.append([0x31] + DER.length(sequence) + [0x30] + DER.length(fields)
                            + [0x02, 0x01, 0x63, 0x02, 0x01, 0x01, 0x04] + DER.length(size))
            size = 1 + DER.length(sequence).count + sequence
        }
        let nested = Array(prefixes.reversed().joined()) + [0x31, 0x00]
        return try forged(DER.set([DER.attribute(12, DER.ia5("2025-06-01T12:00:00Z")), DER.attribute(98, nested)]))
    }

    @Test func attackerStringsNeverReachTheReaderRaw() throws {
        let dump = ReceiptDumpTests()
        for (index, text) in Self.hostileStrings.enumerated() {
            let path = try temporaryFile(try Self.receiptWithStrings(text), name: "strings-\(index).receipt")
            for format in Self.formats {
                let result = try dump.run(["--root", "pki/test-root.der", "--format", format, "--certs",
                                           "--bundle-id", "com.example", "--product", "product" + text, path])
                #expect(result.status == 1, "\(format): a forged receipt must not verify")
                expectNoRawControls(result.output, "\(format), string \(index)", layout: format == "summary" ? ["\n", "\t"] : ["\n"])
                if format == "text" {
                    // The tool's own verdict line is there once, and says what happened.
                    let verdicts = result.output.split(separator: "\n").filter { $0.hasPrefix("  Verdict:") }
                    #expect(verdicts.count == 1)
                    #expect(verdicts.first?.hasPrefix("  Verdict:                      NOT VERIFIED (signatureInvalid)") == true)
                    #expect(result.output.contains("Bundle ID:                    " + DisplayText.escape("com.example" + text)))
                }
                if format == "json" {
                    // JSON keeps the exact value; JSON's own escaping makes it harmless.
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
                    let receipt = try #require(object["receipt"] as? [String: Any])
                    #expect(receipt["bundleID"] as? String == "com.example" + text)
                }
            }
        }
    }

    @Test(arguments: Expected.hostileOutputFixtures)
    func everyFormatOfAHostileFixtureIsDisplayTextWithinBudget(_ name: String) throws {
        let input = try hostileFixture(name)
        // From the recorded outcome under the test root: 2 when the payload is unreadable; 1 when
        // the bundle check fails (on strings appended to the bundle id); 0 otherwise.
        let fixture = try FixtureManifest.headline("hostile/\(name)")
        let bundleID = "com.example.receiptparser.sample"
        let expected: Int32 = fixture.decoder != nil ? 2 : fixture.receipt?["bundleID"] == .text(bundleID) ? 0 : 1
        var summaries: [String] = []
        for format in Self.formats {
            let result = try ReceiptDumpTests().run(["--root", "pki/test-root.der", "--format", format, "--certs",
                                                     "--bundle-id", bundleID, "hostile/\(name)"])
            #expect(result.status == expected, "\(name), \(format)")
            expectNoRawControls(result.output, "\(name), \(format)", layout: format == "summary" ? ["\n", "\t"] : ["\n"])
            expectOutputWithinBudget(result.output, input: input.count, "\(name), \(format)")
            if format == "summary" { summaries.append(result.output) }
            if format == "text" {
                let verdicts = result.output.split(separator: "\n").filter { $0.hasPrefix("  Verdict:") }
                #expect(verdicts.count == 1, "\(name): \(verdicts)")
            }
        }
        for summary in summaries {
            #expect(summary.split(separator: "\n", omittingEmptySubsequences: false).count == 2)  // one line and its end
            #expect(summary.split(separator: "\t").count == 5)
        }
    }

    @Test func summaryIsOneLinePerInputWhateverTheFieldsHold() throws {
        var paths: [String] = []
        for (index, text) in Self.hostileStrings.enumerated() {
            paths.append(try temporaryFile(try Self.receiptWithStrings(text), name: "line\n\(index)\t.receipt"))
        }
        let result = try ReceiptDumpTests().run(["--format", "summary", "--root", "pki/test-root.der"] + paths)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == paths.count)
        for line in lines {
            #expect(line.split(separator: "\t", omittingEmptySubsequences: false).count == 5, "\(line)")
            #expect(line.contains("\tnot verified (signatureInvalid)\t"))
        }
        expectNoRawControls(result.output, "summary", layout: ["\n", "\t"])
    }

    @Test func anErrorReasonQuotingInputIsEscaped() throws {
        let payload = DER.set([DER.attribute(12, DER.ia5("\r\u{1B}[2K  Verdict: VERIFIED"))])
        let path = try temporaryFile(try Self.forged(payload), name: "bad-date.receipt")
        // A forgery is not verified whatever its payload holds; read without verification, its
        // payload is unreadable and the reason quotes it.
        let verified = try ReceiptDumpTests().run(["--format", "summary", "--at", "2025-06-01T00:00:00Z", path])
        #expect(verified.status == 1)
        #expect(verified.output.contains("\tnot verified ("))
        for format in ["text", "asn1", "summary"] {
            let result = try ReceiptDumpTests().run(["--format", format, "--no-verify", "--at", "2025-06-01T00:00:00Z", path])
            #expect(result.status == 2)
            expectNoRawControls(result.output, format, layout: format == "summary" ? ["\n", "\t"] : ["\n"])
        }
        let text = try ReceiptDumpTests().run(["--no-verify", "--at", "2025-06-01T00:00:00Z", path])
        #expect(text.output.contains("UNREADABLE (invalidDate): attribute 12 is not an RFC 3339 date: \"\\r\\u{1B}[2K  Verdict: VERIFIED\""))
    }

    @Test func wideCellsDoNotWidenEveryRow() throws {
        let bytes = try Self.wideCells(width: 50_000, entries: 4_000)
        let path = try temporaryFile(bytes, name: "wide.receipt")
        for format in Self.formats {
            let result = try ReceiptDumpTests().run(["--format", format, "--root", "pki/test-root.der", path])
            #expect(result.status == 1)
            expectOutputWithinBudget(result.output, input: bytes.count, format)
        }
        let text = try ReceiptDumpTests().run(["--root", "pki/test-root.der", path])
        #expect(text.output.contains(String(repeating: "w", count: DisplayText.cellLimit) + "… (50000 characters)"))
        let rows = text.output.split(separator: "\n").filter { $0.hasPrefix("    -  ") }
        #expect(rows.count == 4_001)  // the wide entry has no purchase date either
        #expect(rows.allSatisfy { $0.utf8.count < 200 })
        // The full value stays in the JSON.
        let json = try ReceiptDumpTests().run(["--format", "json", "--root", "pki/test-root.der", path])
        #expect(json.output.contains(String(repeating: "w", count: 50_000)))
    }

    @Test func deepNestingIsShownWithinTheBudget() throws {
        let bytes = try Self.nestedSets(depth: 5_000)
        let path = try temporaryFile(bytes, name: "nested.receipt")
        for format in Self.formats {
            let result = try ReceiptDumpTests().run(["--format", format, "--root", "pki/test-root.der", path])
            #expect(result.status == 1)
            expectOutputWithinBudget(result.output, input: bytes.count, format)
        }
        let asn1 = try ReceiptDumpTests().run(["--format", "asn1", "--root", "pki/test-root.der", path])
        let lines = asn1.output.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("                              [depth 9] type 99 version 1 SET OF ReceiptAttribute (1)") })
        // Past the decoder's nesting limit the rest is shown as bytes, not expanded further.
        #expect(lines.contains { $0.contains("[depth \(ASN1Report.expandedDepth)] type 99 version 1 OCTETS [31") })
        #expect(!lines.contains { $0.contains("[depth \(ASN1Report.expandedDepth + 1)]") })
        #expect(lines.allSatisfy { $0.prefix { $0 == " " }.count <= 4 * ASN1Report.indentedDepth })
    }

    /// A megabyte of each hostile shape, through every format: within the output budget, in
    /// at most 3 s, and (without a sanitizer's shadow memory) within the memory budget.
    @Test func aMegabyteOfHostileShapesStaysWithinEveryBudget() throws {
        let inputs = [("wide", try Self.wideCells(width: 500_000, entries: 42_000)),
                      ("nested", try Self.nestedSets(depth: 62_000))]
        for (name, bytes) in inputs {
            #expect(bytes.count > 1_000_000)
            let path = try temporaryFile(bytes, name: "\(name).receipt")
            for format in Self.formats {
                let start = ContinuousClock.now
                let result = try ReceiptDumpTests().run(["--format", format, "--root", "pki/test-root.der", path])
                let elapsed = ContinuousClock.now - start
                #expect(result.status == 1, "\(name), \(format): \(result.errors)")
                expectOutputWithinBudget(result.output, input: bytes.count, "\(name), \(format)")
                #expect(elapsed < Self.timeBudget, "\(name), \(format): \(elapsed)")
            }
            if !Self.underSanitizer {
                var usage = rusage()
                getrusage(RUSAGE_CHILDREN.rawValue, &usage)
                let peak = usage.ru_maxrss * 1024  // kilobytes on Linux
                #expect(peak <= 256 << 20 + 40 * bytes.count, "\(name): a child process peaked at \(peak) bytes")
            }
        }
    }

    /// 3 s on this machine for an optimised build; debug code is several times slower.
    static var timeBudget: Duration {
        #if DEBUG
        return underSanitizer ? .seconds(60) : .seconds(15)
        #else
        return underSanitizer ? .seconds(30) : .seconds(3)
        #endif
    }

    static var underSanitizer: Bool {
        let environment = ProcessInfo.processInfo.environment
        return ["ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"].contains { environment[$0] != nil }
    }
}
