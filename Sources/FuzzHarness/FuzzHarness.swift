// The body of every fuzz target, shared with the unit tests.
//
// The libFuzzer executables in Fuzz/ call it, and the unit tests replay Fuzz/regressions with
// it. Keep it free of anything but the public API.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser
import ReceiptReports

/// The fuzz targets.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Bytes → input detection → container → verification against the test PKI → payload,
    /// with and without the verifier's chain cache (which must agree); and the container's
    /// payload decoded unverified, so mutations reach the decoder too.
    case pipeline
    /// `ReceiptPayloadDecoder.decode` alone.
    case payload
    /// `ReceiptInput.receiptBytes(from:)` (raw / base64 / request body), then the container;
    /// and the strict JSON reader, whose values must read back equal from their rendering.
    case input
    /// receipt-dump's reports of the input in every format, with certificate details: the
    /// views for people hold no control character but their own newlines (and the summary's
    /// tabs), the summary is one line, the JSON formats parse, and every output stays within
    /// 100 bytes per input byte + 64 KiB.
    case render
    /// `JSONWriter` over strings cut from the input's first 4 KiB (at NUL bytes, decoded as UTF-8 with
    /// repairs), as keys, strings, numbers, dates and hex, in both layouts: the text must parse
    /// strictly back to exactly what was written, hold no control or format character raw
    /// (the indented layout's line feeds aside), and equal JSONEncoder's text for the strings
    /// with the invisible characters escaped.
    case json
    /// StoreKit 2 signed data: bytes → a bare compact JWS or a JSON body of tokens →
    /// base64url, header, `x5c`, the chain to Apple Root CA - G3, the payload and a
    /// notification's nested tokens, with and without the chain cache (which must agree); every
    /// inspection's JSON parses strictly, holds no control or format character raw, and stays
    /// within 8 bytes per input byte + 64 KiB.
    case token
}

/// Runs one input through one target and describes what happened.
///
/// A thrown `ReceiptError` is a normal outcome, recorded by its code. Anything else a target
/// could do wrong (a trap, a sanitizer report, an error of another type) is a finding: traps
/// and sanitizers stop the process on their own, other errors stop it here.
public struct FuzzHarness: Sendable {
    /// Shared across inputs, as a server shares one, so its chain cache fills and evicts.
    let verifier: ReceiptVerifier
    /// The same anchor without a chain cache: the cache must never change a verdict.
    let uncachedVerifier: ReceiptVerifier
    /// StoreKit 2 tokens under Apple Root CA - G3 (real tokens are the seeds), with and
    /// without a chain cache.
    let tokenVerifier = SignedDataVerifier(chainCacheCapacity: 4)
    let uncachedTokenVerifier = SignedDataVerifier(chainCacheCapacity: 0)

    /// `testRoot` is TestReceipts/pki/test-root.der (DER or PEM).
    public init(testRoot: [UInt8]) throws {
        let anchor = try TrustAnchor.appStore(rootCertificate: testRoot)
        verifier = ReceiptVerifier(anchor: anchor, chainCacheCapacity: 4)
        uncachedVerifier = ReceiptVerifier(anchor: anchor, chainCacheCapacity: 0)
    }

    /// The outcome of `bytes` under `target`: `ok` or a ReceiptError code per stage, stages
    /// separated by `/` (pipeline: verifyAndDecode / unverified payload decode; input:
    /// receiptBytes / container parse; payload: decode). `-` marks a stage not reached.
    public func run(_ target: FuzzTarget, _ bytes: [UInt8]) -> String {
        switch target {
        case .pipeline:
            let cached = Self.verifyAndDecode(verifier, bytes)
            let uncached = Self.verifyAndDecode(uncachedVerifier, bytes)
            guard cached == uncached else {
                fatalError("the chain cache changed a verdict: \(cached) with it, \(uncached) without")
            }
            let verified = outcome { () throws(ReceiptError) in
                let result = try cached.get()
                try exercise(result.receipt)
                _ = result.verification.chain.map { ($0.subject, $0.sha256) }
            }
            // The support tools' pass over the same bytes: it must agree with verifyAndDecode,
            // and decodes what the envelope carries even when verification fails.
            let inspection = verifier.inspect(bytes, options: .everything)
            let strict: Result<VerifiedReceipt, ReceiptError>
            do throws(ReceiptError) { strict = .success(try inspection.verified()) } catch { strict = .failure(error) }
            guard strict == cached else {
                fatalError("inspect and verifyAndDecode disagree: \(strict) against \(cached)")
            }
            let decoded: String
            if inspection.container == nil {
                decoded = "-"
            } else if let readError = inspection.readError {
                decoded = readError.code.name
            } else {
                decoded = outcome { () throws(ReceiptError) in try exercise(inspection.receipt!) }
            }
            return "\(verified)/\(decoded)"
        case .payload:
            return outcome { () throws(ReceiptError) in try exercise(ReceiptPayloadDecoder.decode(bytes)) }
        case .render:
            var settings = DumpSettings()
            settings.verifier = verifier
            settings.wantsCertificateDetails = true
            // The name is input too (a file name): it must come out as display text as well.
            let result = DumpResult.make(name: "fuzz\u{1B}[2J\tinput", loaded: .success(bytes), settings: settings)
            for format in ReportFormat.allCases {
                let renderer = Renderer(format: format, style: Style(enabled: false), showDetails: true,
                                        statusTime: Date(timeIntervalSince1970: 1_750_000_000), expectedEnvironment: .production)
                Self.checkReport(renderer.render(result), format: format, inputSize: bytes.count)
            }
            return "exit\(result.exitStatus)"
        case .json:
            return Self.exerciseJSONWriter(bytes)
        case .token:
            return exerciseSignedData(bytes)
        case .input:
            Self.exerciseStrictJSON(bytes)
            var receiptBytes: [UInt8]?
            let read = outcome { () throws(ReceiptError) in receiptBytes = try ReceiptInput.receiptBytes(from: bytes) }
            // Every reader of request bodies must find the same receipt (or refuse the body).
            if let request = try? VerifyReceiptRequest.parse(bytes), let receiptBytes, receiptBytes != request.receiptData {
                fatalError("ReceiptInput and VerifyReceiptRequest read different receipts from one body")
            }
            let parsed = receiptBytes.map { receiptBytes in
                outcome { () throws(ReceiptError) in _ = try ReceiptContainer.parse(receiptBytes) }
            } ?? "-"
            return "\(read)/\(parsed)"
        }
    }

    /// The budget and the display rules every report must keep, whatever the input holds.
    private static func checkReport(_ output: String, format: ReportFormat, inputSize: Int) {
        guard output.utf8.count <= 100 * inputSize + 65_536 else {
            fatalError("\(format) wrote \(output.utf8.count) bytes for \(inputSize) bytes of input")
        }
        let layout: Set<Unicode.Scalar> = format == .summary ? ["\n", "\t"] : ["\n"]
        if let raw = output.unicodeScalars.first(where: { isActive($0) && !layout.contains($0) }) {
            fatalError("\(format) holds U+\(String(raw.value, radix: 16)) raw: \(output.debugDescription.prefix(300))")
        }
        switch format {
        case .summary:
            guard output.last == "\n", output.utf8.filter({ $0 == UInt8(ascii: "\n") }).count == 1 else {
                fatalError("the summary is not one line: \(output.debugDescription.prefix(300))")
            }
        case .json, .verifyreceipt:
            do throws(ReceiptError) {
                _ = try StrictJSON.parse(Array(output.utf8))
            } catch {
                fatalError("\(format) is not strict JSON (\(error)): \(output.prefix(300))")
            }
        case .text, .asn1:
            break
        }
    }

    /// Controls, format characters (bidirectional, zero-width) and line separators: what acts
    /// on a display. Written here independently of the library's own list, as the oracle.
    private static func isActive(_ scalar: Unicode.Scalar) -> Bool {
        // Printable ASCII, most of every report, is never active: answered before the Unicode
        // property lookup, which made a report of a 100 KB input take over libFuzzer's 1 s.
        if (0x20..<0x7F).contains(scalar.value) { return false }
        if scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) { return true }
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator, .control: return true
        default: return false
        }
    }

    /// The `json` target: see ``FuzzTarget/json``. The outcome counts the strings written.
    /// Only the first 4 KiB are used: the writer does nothing different for longer text, and
    /// the oracles (JSONEncoder, two strict parses, a Unicode property per scalar) would
    /// make each input slow.
    private static func exerciseJSONWriter(_ bytes: [UInt8]) -> String {
        let strings = bytes.prefix(4096).split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        // What each string becomes: a one-member object (keys stay unique, as the strict reader
        // requires) whose value cycles through the writer's kinds of value.
        func value(_ index: Int, _ string: String) -> (write: (inout JSONWriter) -> Void, expected: StrictJSON.Value) {
            let utf8 = Array(string.utf8)
            let number = utf8.reduce(Int64(index)) { $0 &* 31 &+ Int64($1) } &* (index % 2 == 0 ? 1 : -1)
            switch index % 4 {
            case 0: return ({ $0.string(string) }, .string(string))
            case 1: return ({ $0.number(number) }, .number(String(number)))
            case 2:
                // Any millisecond between the years 0000 and 9999, as receipts and certificates have.
                let milliseconds = number.magnitude % 315_537_897_600_000
                let date = Date(timeIntervalSince1970: Double(Int64(milliseconds) - 62_167_219_200_000) / 1000)
                return ({ $0.date(date) }, .string(RFC3339.string(from: date)))
            default:
                return ({ $0.hex(ByteString(utf8)) }, .string(ByteString(utf8).hex))
            }
        }
        let expected = StrictJSON.Value.array(strings.enumerated().map { index, string in
            .object([(key: string, value: value(index, string).expected)])
        })
        var texts: [String] = []
        for layout in [JSONWriter.Layout.compact, .indented] {
            var json = JSONWriter(layout: layout)
            json.beginArray()
            for (index, string) in strings.enumerated() {
                json.beginObject()
                json.key(string)
                value(index, string).write(&json)
                json.endObject()
            }
            json.endArray()
            let text = json.finishString()
            let layoutScalars: Set<Unicode.Scalar> = layout == .indented ? ["\n"] : []
            if let raw = text.unicodeScalars.first(where: { !layoutScalars.contains($0) && isActive($0) }) {
                fatalError("JSONWriter (\(layout)) left U+\(String(raw.value, radix: 16)) raw: \(text.debugDescription.prefix(300))")
            }
            do throws(ReceiptError) {
                guard try StrictJSON.parse(Array(text.utf8)) == expected else {
                    fatalError("JSONWriter (\(layout)) wrote other values than it was given: \(text.debugDescription.prefix(300))")
                }
            } catch {
                fatalError("JSONWriter (\(layout)) wrote text the strict reader refuses (\(error)): \(text.debugDescription.prefix(300))")
            }
            texts.append(text)
        }
        // The escapes are JSONEncoder's, plus the invisible characters it leaves raw.
        var json = JSONWriter()
        strings.write(to: &json)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        guard let data = try? encoder.encode(strings) else { fatalError("JSONEncoder refused strings") }
        let reference = escapingActiveScalars(in: String(decoding: data, as: UTF8.self))
        guard Array(json.finishString().utf8) == Array(reference.utf8) else {
            fatalError("JSONWriter and JSONEncoder write strings differently: \(reference.debugDescription.prefix(300))")
        }
        return "ok\(strings.count)"
    }

    /// JSONEncoder's text with the active scalars it leaves raw written as `\uXXXX` escapes:
    /// what JSONWriter must write (JSONReportTests use it too).
    package static func escapingActiveScalars(in json: String) -> String {
        var text = ""
        for scalar in json.unicodeScalars {
            guard scalar.value >= 0x7F, isActive(scalar) else { text.unicodeScalars.append(scalar); continue }
            let units = scalar.value < 0x10000 ? [scalar.value]
                : [0xD800 + ((scalar.value - 0x10000) >> 10), 0xDC00 + ((scalar.value - 0x10000) & 0x3FF)]
            for unit in units {
                let hex = String(unit, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return text
    }

    /// A value the strict reader accepts renders to text it reads back to the same value, and
    /// the rendering is stable.
    private static func exerciseStrictJSON(_ bytes: [UInt8]) {
        guard let value = try? StrictJSON.parse(bytes) else { return }
        let text = value.rendered()
        do throws(ReceiptError) {
            let again = try StrictJSON.parse(Array(text.utf8))
            guard again == value, again.rendered() == text else {
                fatalError("a JSON value changes when rendered and read again: \(text.prefix(200))")
            }
        } catch {
            fatalError("the rendering of a JSON value is refused (\(error)): \(text.prefix(200))")
        }
    }

    /// The `token` target: see ``FuzzTarget/token``. The outcome is each inspection's failure
    /// code (or `ok`), joined by `,`.
    private func exerciseSignedData(_ bytes: [UInt8]) -> String {
        let inspections = tokenVerifier.inspectAll(bytes, options: .everything)
        let uncached = uncachedTokenVerifier.inspectAll(bytes, options: .everything)
        let outcome = inspections.map { $0.failure?.code.name ?? "ok" }.joined(separator: ",")
        guard uncached.map({ $0.failure?.code.name ?? "ok" }).joined(separator: ",") == outcome,
              uncached.map(\.verdict) == inspections.map(\.verdict) else {
            fatalError("the chain cache changed a token's verdict")
        }
        var json = JSONWriter()
        inspections.write(to: &json)
        let text = json.finishString()
        guard text.utf8.count <= 8 * bytes.count + 65_536 else {
            fatalError("a token's JSON has \(text.utf8.count) bytes for \(bytes.count) bytes of input")
        }
        if let raw = text.unicodeScalars.first(where: { Self.isActive($0) }) {
            fatalError("a token's JSON holds U+\(String(raw.value, radix: 16)) raw: \(text.debugDescription.prefix(300))")
        }
        do throws(ReceiptError) {
            _ = try StrictJSON.parse(Array(text.utf8), maximumDepth: 2 * DecodingLimits.maximumTokenJSONDepth)
        } catch {
            fatalError("a token's JSON is not strict JSON (\(error)): \(text.prefix(300))")
        }
        return outcome
    }

    private static func verifyAndDecode(_ verifier: ReceiptVerifier, _ bytes: [UInt8]) -> Result<VerifiedReceipt, ReceiptError> {
        do throws(ReceiptError) {
            return .success(try verifier.verifyAndDecode(bytes))
        } catch {
            return .failure(error)
        }
    }

    /// Reads every part of a decoded receipt the way a caller would, including its JSON form.
    private func exercise(_ receipt: Receipt) throws(ReceiptError) {
        // The raw attributes are read back lazily from the payload: every set must give back
        // as many as it counts, and survive JSON (which re-encodes them) unchanged.
        let sets = [receipt.attributes] + receipt.inAppPurchases.map(\.attributes)
        for set in sets where Array(set).count != set.count {
            fatalError("a raw attribute set reads back \(Array(set).count) attributes, counts \(set.count)")
        }
        do {
            let json = try JSONEncoder.receiptModels().encode(receipt)
            let decoded = try JSONDecoder.receiptModels().decode(Receipt.self, from: json)
            let decodedSets = [decoded.attributes] + decoded.inAppPurchases.map(\.attributes)
            guard decodedSets.map(Array.init) == sets.map(Array.init) else {
                fatalError("raw attributes change through JSON")
            }
        } catch {
            fatalError("a decoded receipt does not round-trip through JSON: \(error)")
        }
    }

    private func outcome(_ body: () throws(ReceiptError) -> Void) -> String {
        do {
            try body()
            return "ok"
        } catch {
            return error.code.name
        }
    }
}
