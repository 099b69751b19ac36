#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The output formats of receipt-dump.
public enum ReportFormat: String, CaseIterable, Sendable {
    /// For people: verdict, chain, fields, purchase table, raw attributes.
    case text
    /// The full typed model.
    case json
    /// Apple's verifyReceipt JSON.
    case verifyreceipt
    /// The raw attribute tree.
    case asn1
    /// One tab-separated line per receipt.
    case summary
}

/// Renders one receipt in the chosen format.
public struct Renderer: Sendable {
    package let format: ReportFormat
    package let style: Style
    package let showDetails: Bool
    package let statusTime: Date
    package let expectedEnvironment: Environment?

    /// - Parameters:
    ///   - showDetails: certificate extensions, markers and algorithms too (`--certs`).
    ///   - statusTime: the instant subscription status is given for.
    ///   - expectedEnvironment: `--environment`, for the verifyreceipt format.
    public init(format: ReportFormat, style: Style, showDetails: Bool, statusTime: Date, expectedEnvironment: Environment?) {
        self.format = format
        self.style = style
        self.showDetails = showDetails
        self.statusTime = statusTime
        self.expectedEnvironment = expectedEnvironment
    }

    /// The report of one receipt: display text for the people formats, JSON for the others.
    public func render(_ result: DumpResult) -> String {
        switch format {
        case .text: return TextReport(style: style, statusTime: statusTime, showDetails: showDetails).render(result)
        case .json: return JSONReport.render(result)
        case .verifyreceipt: return VerifyReceiptReport.render(result, expecting: expectedEnvironment).rendered(pretty: true)
        case .asn1: return ASN1Report.render(result)
        case .summary: return SummaryReport.render(result) + "\n"
        }
    }
}

/// ANSI colour, only when writing to a terminal.
public struct Style: Sendable {
    package let enabled: Bool
    /// Colour on or off.
    public init(enabled: Bool) { self.enabled = enabled }
    package func green(_ text: String) -> String { paint(text, "32") }
    package func red(_ text: String) -> String { paint(text, "31") }
    package func yellow(_ text: String) -> String { paint(text, "33") }
    package func bold(_ text: String) -> String { paint(text, "1") }
    private func paint(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// The --format text output: for people reading a support ticket.
package struct TextReport {
    package let style: Style
    /// The instant subscription status is reported for.
    package let statusTime: Date
    /// --certs: certificate extensions and markers too.
    package let showDetails: Bool

    package func render(_ result: DumpResult) -> String {
        var lines: [String] = [style.bold("File: " + DisplayText.escape(result.file))]
        func field(_ name: String, _ value: String?) {
            guard let value else { return }
            lines.append("  " + (name + ":").padded(to: 30) + value)
        }
        let report: VerificationReport? = if case .success(let report)? = result.verification { report } else { nil }
        let line = SupportView.verdictLine(result.verdict, report: report, code: result.problem?.code, reason: result.problem?.reason)
        let colour = switch result.verdict {
        case .verified: style.green
        case .notChecked: style.yellow
        default: style.red
        }
        field("Verdict", colour(line.headline) + line.detail + (result.verdict == .notChecked ? " (--no-verify)" : ""))
        for check in result.checks {
            field("Check \(check.name)", (check.passed ? style.green("PASS") : style.red("FAIL")) + ": " + DisplayText.escape(check.detail, limit: DisplayText.reasonLimit))
        }
        appendCertificates(result, to: &lines)
        guard let receipt = result.receipt else { return lines.joined(separator: "\n") + "\n" }

        for (label, value) in SupportView.fields(of: receipt) { field(label, value) }

        let shown = receipt.inAppPurchases.count
        let count = shown == result.totalInAppPurchases ? "\(shown)" : "\(shown) shown of \(result.totalInAppPurchases)"
        lines.append("  In-app purchases: \(count)" + (shown == 0 ? "" : ", by purchase date"))
        lines += purchaseTable(receipt.inAppPurchases).map { "    " + $0 }

        lines.append("  Subscriptions at \(RFC3339.string(from: statusTime)): \(SupportView.subscriptionStatus(of: receipt, at: statusTime))")

        if let reconciliation = result.reconciliation {
            let missed = reconciliation.notCredited.map { DisplayText.escape($0, limit: DisplayText.cellLimit) }
            lines.append("  Not yet credited (\(missed.count)): " + (missed.isEmpty ? "none" : style.yellow(missed.joined(separator: ", "))))
            let unknown = reconciliation.notInReceipt.map { DisplayText.escape($0, limit: DisplayText.cellLimit) }
            lines.append("  Credited but not in this receipt (\(unknown.count)): " + (unknown.isEmpty ? "none" : unknown.joined(separator: ", ")))
        }

        lines.append("  Attributes (type version value):")
        for attribute in receipt.attributes {
            lines.append("    \(attribute.type) v\(attribute.version) \(Self.describe(attribute))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func appendCertificates(_ result: DumpResult, to lines: inout [String]) {
        let chain: [CertificateSummary]
        if case .success(let report)? = result.verification { chain = report.chain } else { chain = result.certificates }
        guard !chain.isEmpty else { return }
        lines.append(result.verification.map { if case .success = $0 { return "  Chain:" } else { return "  Certificates:" } } ?? "  Certificates:")
        for (index, certificate) in chain.enumerated() {
            lines.append("    [\(index)] " + DisplayText.escape(certificate.subject, limit: DisplayText.reasonLimit))
            lines.append("        issuer " + DisplayText.escape(certificate.issuer, limit: DisplayText.reasonLimit))
            lines.append("        valid \(RFC3339.string(from: certificate.notBefore)) to \(RFC3339.string(from: certificate.notAfter)), SHA-256 \(certificate.sha256)")
            guard showDetails, let details = result.certificateDetails?.first(where: { $0.summary.sha256 == certificate.sha256 }) else { continue }
            lines.append("        serial \(DisplayText.escape(certificate.serialNumber, limit: DisplayText.cellLimit)), signature \(DisplayText.escape(details.signatureAlgorithm, limit: DisplayText.cellLimit)), CA \(details.isCertificateAuthority ? "yes" : "no")" +
                         (details.appleMarkers.isEmpty ? "" : ", Apple markers: \(details.appleMarkers.joined(separator: ", "))"))
            lines.append("        extensions " + details.extensions.map { DisplayText.escape($0.oid, limit: DisplayText.cellLimit) + ($0.critical ? " (critical)" : "") }.joined(separator: ", "))
        }
    }

    /// The purchases as an aligned table, oldest first. Cells come escaped and capped from
    /// SupportView, so no column is wider than DisplayText.cellLimit plus its marker.
    private func purchaseTable(_ purchases: [InAppPurchase]) -> [String] {
        guard !purchases.isEmpty else { return [] }
        let table = [SupportView.purchaseColumns] + SupportView.purchaseRows(purchases)
        let widths = SupportView.purchaseColumns.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padded(to: widths[column])
            }.joined(separator: "  ").trimming(\.isBlank)
        }
    }

    /// A raw attribute's value: its decoded form when it has one, else hex.
    package static func describe(_ attribute: ReceiptAttribute) -> String {
        switch attribute.decodedValue {
        case .integer(let value): return String(value)
        case .utf8String(let text), .ia5String(let text): return "\"" + DisplayText.escape(text, limit: DisplayText.fieldLimit) + "\""
        case .attributes(let inner): return "SET of \(inner.count) attributes (in-app purchase)"
        case .bytes:
            let hex = attribute.value.hex
            return hex.count > 96 ? String(hex.prefix(96)) + "... (\(attribute.value.count) bytes)" : hex
        }
    }
}

/// The --format asn1 output: the raw attribute tree with type numbers, versions, hex and values.
///
/// A forged receipt may nest attribute SETs thousands of levels deep: indentation stops growing
/// at `indentedDepth` (deeper lines say their depth as a number instead), and SETs deeper than
/// `expandedDepth` are shown as hex, not expanded, so output and time stay proportional to the
/// receipt. Each expanded level holds a copy of its bytes while deeper ones are walked, so
/// memory is at most `expandedDepth` times the payload. Real receipts nest 2 levels.
package enum ASN1Report {
    package static let indentedDepth = 8
    package static let expandedDepth = 16

    package static func render(_ result: DumpResult) -> String {
        var lines = ["File: " + DisplayText.escape(result.file)]
        guard let receipt = result.receipt else {
            let problem = result.readError.map { "\($0.code)): " + DisplayText.escape($0.reason, limit: DisplayText.reasonLimit) } ?? "?)"
            lines.append("  \(Verdict.unreadable.rawValue) (" + problem)
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("SET OF ReceiptAttribute (\(receipt.attributes.count))")
        // Depth-first without recursion: a stack of the sets being walked, one per level.
        var stack: [(attributes: ReceiptAttributeSet, position: ReceiptAttributeSet.Index)] = [(receipt.attributes, receipt.attributes.startIndex)]
        while let top = stack.last {
            guard top.position != top.attributes.endIndex else {
                stack.removeLast()
                continue
            }
            let attribute = top.attributes[top.position]
            stack[stack.count - 1].position = top.attributes.index(after: top.position)
            let depth = stack.count
            let indent = depth <= indentedDepth
                ? String(repeating: "    ", count: depth - 1) + "  "
                : String(repeating: "    ", count: indentedDepth - 1) + "  [depth \(depth)] "
            var line = "\(indent)type \(attribute.type) version \(attribute.version) "
            let value = depth < expandedDepth ? attribute.decodedValue : .bytes
            switch value {
            case .integer(let number): line += "INTEGER \(number)"
            case .utf8String(let text): line += "UTF8String \"" + DisplayText.escape(text, limit: DisplayText.fieldLimit) + "\""
            case .ia5String(let text): line += "IA5String \"" + DisplayText.escape(text, limit: DisplayText.fieldLimit) + "\""
            case .attributes(let inner): line += "SET OF ReceiptAttribute (\(inner.count))"
            case .bytes: line += "OCTETS"
            }
            if case .attributes(let inner) = value {
                lines.append(line)
                stack.append((inner, inner.startIndex))
            } else {
                lines.append(line + " [\(attribute.value.hex)]")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The --format summary output: exactly one tab-separated line per receipt.
package enum SummaryReport {
    package static func render(_ result: DumpResult) -> String {
        var verdict = result.verdict.rawValue
        if let problem = result.problem { verdict += " (\(problem.code))" }
        if result.problem == nil, result.checks.contains(where: { !$0.passed }) { verdict += " (check failed)" }
        let receipt = result.receipt
        // One line per receipt whatever the fields hold: tabs and newlines in them are escaped.
        return [DisplayText.escape(result.file), verdict,
                DisplayText.escape(receipt?.bundleID ?? "-", limit: DisplayText.fieldLimit),
                DisplayText.escape(receipt?.receiptType ?? "-", limit: DisplayText.cellLimit),
                receipt.map { "\($0.inAppPurchases.count) in-app" } ?? "-"].joined(separator: "\t")
    }
}

/// The --format verifyreceipt output: Apple's response format.
package enum VerifyReceiptReport {
    package static func render(_ result: DumpResult, expecting environment: Environment?) -> JSONValue {
        if let verified = result.verifiedReceipt, result.readError == nil {
            return VerifyReceiptResponse.make(for: .success(verified), expecting: environment)
        }
        let status: VerifyReceiptResponse.Status = result.readError == nil ? .notAuthenticated : .malformed
        return .object([("status", .number(status.rawValue))])
    }
}

/// The --format json output: the full typed model of one receipt.
///
/// The text is JSONEncoder's (pretty, sorted keys, RFC 3339 dates) for the whole `DumpResult`,
/// with the invisible characters it leaves raw escaped. Encoded in one go, JSONEncoder's tree
/// would hold every raw attribute of every in-app purchase at once (2 GB for a 33 MB receipt of
/// 3.3 million empty attributes), so the purchases are encoded one at a time and spliced into
/// the result encoded without them: the tree never holds more than one purchase (at most
/// `DecodingLimits.maximumAttributeCount` attributes), and the text is the same, byte for byte.
package enum JSONReport {
    package static func render(_ result: DumpResult) -> String {
        spliced(result) ?? singleShot(result)
    }

    /// The report encoded in one go: for results without in-app purchases, and should the
    /// encoder ever write other text than `spliced` expects or fail.
    package static func singleShot(_ result: DumpResult) -> String {
        do {
            return text(try JSONEncoder.receiptModels(prettyPrinted: true).encode(result))
        } catch {
            // The model holds only strings, numbers and dates; say so if that ever changes.
            return "{\"file\": \(JSONValue.string(result.file).rendered()), \"error\": {\"code\": \"encodingFailed\", \"reason\": \(JSONValue.string("\(error)").rendered())}}"
        }
    }

    /// The report built from parts: the result with no in-app purchases, in which the empty
    /// array `"inAppPurchases" : [\n\n    ]` is replaced by the purchases, each encoded alone
    /// and indented by the 6 spaces of its depth (JSONEncoder indents by 2 per level and leaves
    /// the blank line of an empty array or object unindented). Nil when there are no purchases,
    /// when the encoder fails, or when its text is not as expected; `render` then encodes in
    /// one go, which gives the same text (or the same failure).
    package static func spliced(_ result: DumpResult) -> String? {
        guard let purchases = result.receipt?.inAppPurchases, !purchases.isEmpty else { return nil }
        var skeleton = result
        skeleton.receipt?.inAppPurchases = []
        let encoder = JSONEncoder.receiptModels(prettyPrinted: true)
        var head: String
        var parts: [String] = []
        do {
            head = text(try encoder.encode(skeleton))
            parts.reserveCapacity(purchases.count)
            for purchase in purchases { parts.append(text(try encoder.encode(purchase))) }
        } catch {
            return nil
        }
        // The receipt is at depth 1 of the result, its keys (and the array's `]`) at depth 2,
        // the purchases at depth 3.
        let opening = Array("\n  \"receipt\" : {\n".utf8)
        let emptyArray = Array("\n    \"inAppPurchases\" : [\n\n    ]".utf8)
        let (indent, separator, closing) = (6, Array(",\n".utf8), Array("\n    ".utf8))
        return head.withUTF8 { head -> String? in
            // A raw line feed stands only between tokens (strings escape theirs), and only
            // DumpResult's own keys are indented by 2 and only the receipt's, in it, by 4: the
            // first empty array of purchases after the receipt's key is the receipt's.
            guard let receipt = firstRange(of: opening, in: head, from: 0),
                  let array = firstRange(of: emptyArray, in: head, from: receipt.upperBound) else { return nil }
            let open = array.upperBound - 8     // the `[`
            let close = array.upperBound - 1    // the `]`
            var total = (open + 1) + 1 + separator.count * (parts.count - 1) + closing.count + (head.count - close)
            for index in parts.indices {
                total += parts[index].withUTF8 { indent + indented($0, by: indent, into: nil) }
            }
            return String(unsafeUninitializedCapacity: total) { output in
                var position = 0
                func append(_ bytes: UnsafeBufferPointer<UInt8>) {
                    _ = UnsafeMutableBufferPointer(rebasing: output[position..<(position + bytes.count)]).initialize(fromContentsOf: bytes)
                    position += bytes.count
                }
                append(UnsafeBufferPointer(rebasing: head[...open]))
                output[position] = UInt8(ascii: "\n")
                position += 1
                for index in parts.indices {
                    if index > 0 { separator.withUnsafeBufferPointer { append($0) } }
                    output.baseAddress!.advanced(by: position).initialize(repeating: UInt8(ascii: " "), count: indent)
                    position += indent
                    let destination = output.baseAddress! + position
                    position += parts[index].withUTF8 { indented($0, by: indent, into: destination) }
                    parts[index] = ""   // each part freed once copied
                }
                closing.withUnsafeBufferPointer { append($0) }
                append(UnsafeBufferPointer(rebasing: head[close...]))
                precondition(position == total, "JSONReport: spliced text of unexpected length")
                return position
            }
        }
    }

    /// JSONEncoder's text as the report has it: the invisible characters it leaves raw escaped.
    private static func text(_ data: Data) -> String {
        JSONValue.escapingInvisibleCharacters(in: String(decoding: data, as: UTF8.self))
    }

    /// Copies `text` to `destination` (when given) with `indent` spaces after every line feed
    /// that does not end the text or begin a blank line; returns the length written.
    private static func indented(_ text: UnsafeBufferPointer<UInt8>, by indent: Int, into destination: UnsafeMutablePointer<UInt8>?) -> Int {
        var written = 0
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count && text[end] != UInt8(ascii: "\n") { end += 1 }
            // The line and its line feed, then the next line's extra indentation.
            let line = min(end + 1, text.count) - start
            destination?.advanced(by: written).initialize(from: text.baseAddress! + start, count: line)
            written += line
            start = end + 1
            if start < text.count && text[start] != UInt8(ascii: "\n") {
                destination?.advanced(by: written).initialize(repeating: UInt8(ascii: " "), count: indent)
                written += indent
            }
        }
        return written
    }

    /// Where `pattern` first occurs in `text` at or after `start`.
    private static func firstRange(of pattern: [UInt8], in text: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int>? {
        guard let first = pattern.first, text.count >= pattern.count else { return nil }
        var index = start
        while index <= text.count - pattern.count {
            if text[index] == first && pattern.indices.allSatisfy({ text[index + $0] == pattern[$0] }) {
                return index..<(index + pattern.count)
            }
            index += 1
        }
        return nil
    }
}
