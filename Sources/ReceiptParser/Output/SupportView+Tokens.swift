#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// StoreKit 2 tokens as support staff see them, for `receipt-dump --format text` and the
// server's page alike: the verdict and the chain first, then the payload's members with dates
// as RFC 3339 and money as an amount in its currency, then a notification's nested tokens.

extension SupportView {
    /// What a part of a line tells the reader, for a tool that colours it (a terminal); the
    /// text itself never changes with it.
    public enum Tone: Sendable {
        /// Verified, passed.
        case good
        /// Not checked.
        case caution
        /// Refused, failed.
        case bad
    }

    /// Each token as labelled lines, its nested tokens indented below it.
    ///
    /// Every text a token carries (members, values, reasons, certificate subjects) is display
    /// text, escaped and bounded, so callers add only their own layout.
    ///
    /// - Parameters:
    ///   - verified: false when the signatures were not checked (receipt-dump's `--no-verify`):
    ///     readable tokens then show `not checked` instead of a verdict.
    ///   - judgedAt: the instant the certificates were judged at when it was fixed (`--at`)
    ///     instead of each token's signed date.
    ///   - tone: marks the verdict's headline and each check's outcome (a terminal colours them).
    public static func tokenLines(_ tokens: [SignedDataInspection], verified: Bool = true, judgedAt: Date? = nil,
                                  tone: (String, Tone) -> String = { text, _ in text }) -> [String] {
        var lines: [String] = []
        for token in tokens {
            appendToken(token, verified: verified, judgedAt: judgedAt, tone: tone, indent: "  ", to: &lines)
        }
        return lines
    }

    /// A token's verdict as shown: with signatures not checked, a readable token is `not checked`.
    package static func verdict(of token: SignedDataInspection, verified: Bool) -> Verdict {
        if !verified { return token.readError == nil ? .notChecked : .unreadable }
        return token.verdict
    }

    /// Members whose milliseconds are shown as an amount (milliunits of `currency`).
    private static let moneyMembers: Set<String> = ["price", "renewalPrice", "commitmentPrice", "taxExclusivePrice",
                                                    "estimatedTax", "commitmentRenewalPrice"]
    /// Members holding nested tokens, shown as their own inspection below.
    private static let tokenMembers: Set<String> = ["signedTransactionInfo", "signedRenewalInfo", "signedAppTransactionInfo"]
    /// Where values start on a labelled line.
    private static let valueColumn = 30

    private static func appendToken(_ token: SignedDataInspection, verified: Bool, judgedAt: Date?,
                                    tone: (String, Tone) -> String, indent: String, to lines: inout [String]) {
        func field(_ name: String, _ value: String) {
            lines.append(indent + padded(name + ":", to: valueColumn) + value)
        }
        let kind = (token.kind ?? token.expectedKind).map(name) ?? "token"
        field("Token", kind + (token.member.map { " (\($0))" } ?? ""))
        let verdict = Self.verdict(of: token, verified: verified)
        let failure = verified || token.readError != nil ? token.failure : nil
        let report = try? token.verification?.get()
        var line = verdictLine(verdict, report: verdict == .verified || verdict == .notAccepted ? report : nil,
                               code: failure?.code.name, reason: failure?.reason)
        if verdict == .notAccepted, let report {
            line.detail = " (\(report.mode.rawValue), certificates valid at \(RFC3339.string(from: report.validationTime)))"
        }
        if let judgedAt, report != nil {
            line.detail += " (judged at \(RFC3339.string(from: judgedAt)), given with --at, not the signed date)"
        }
        let headlineTone: Tone = verdict == .verified ? .good : verdict == .notChecked ? .caution : .bad
        field("Verdict", tone(line.headline, headlineTone) + line.detail + (verdict == .notChecked ? " (--no-verify)" : ""))
        for check in token.checks {
            let outcome = switch check.outcome {
            case .passed: tone("PASS", .good)
            case .failed: tone("FAIL", .bad)
            case .notApplicable: "n/a"
            }
            field("Check \(check.name)", outcome + ": " + DisplayText.escape(check.detail, limit: DisplayText.reasonLimit))
        }
        let chain = report?.chain ?? token.certificates
        if !chain.isEmpty {
            lines.append(indent + (report == nil ? "Certificates (x5c):" : "Chain:"))
            for (index, certificate) in chain.enumerated() {
                lines.append(indent + "  [\(index)] " + DisplayText.escape(certificate.subject, limit: DisplayText.reasonLimit))
                lines.append(indent + "      valid \(RFC3339.string(from: certificate.notBefore)) to \(RFC3339.string(from: certificate.notAfter)), SHA-256 \(certificate.sha256)")
            }
        }
        if case .object(let members)? = token.payload {
            lines.append(indent + (verdict == .verified || verdict == .notAccepted ? "Payload:" : "Payload (as claimed, not verified):"))
            appendMembers(members, currency: text(token.payload?["currency"]), indent: indent + "  ", to: &lines)
        }
        for nested in token.nested {
            appendToken(nested, verified: verified, judgedAt: judgedAt, tone: tone, indent: indent + "  ", to: &lines)
        }
    }

    private static func appendMembers(_ members: [(key: String, value: StrictJSON.Value)], currency: String?, indent: String,
                                      to lines: inout [String]) {
        for (key, value) in members {
            let name = DisplayText.escape(key, limit: DisplayText.cellLimit)
            switch value {
            case .object(let inner):
                lines.append(indent + name + ":")
                appendMembers(inner, currency: text(value["currency"]) ?? currency, indent: indent + "  ", to: &lines)
            default:
                // Nested members keep the values of one token in one column.
                lines.append(indent + padded(name + ":", to: valueColumn - indent.count + 2) + describe(key, value, currency: currency))
            }
        }
    }

    /// One payload value in people's words.
    private static func describe(_ key: String, _ value: StrictJSON.Value, currency: String?) -> String {
        switch value {
        case .string(let text):
            if tokenMembers.contains(key) { return "(a token of \(text.utf8.count) bytes, verified below)" }
            return "\"" + DisplayText.escape(text, limit: DisplayText.fieldLimit) + "\""
        case .number(let text):
            if key.hasSuffix("Date"), let date = UnixMilliseconds.date(from: text) {
                return RFC3339.string(from: date) + " (\(DisplayText.escape(text, limit: DisplayText.fieldLimit)))"
            }
            if moneyMembers.contains(key), let amount = amount(milliunits: text) {
                return amount + (currency.map { " " + DisplayText.escape($0, limit: DisplayText.cellLimit) } ?? "") + " (\(text) milliunits)"
            }
            return DisplayText.escape(text, limit: DisplayText.fieldLimit)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array(let elements):
            // Described only as far as is shown: a forged token's array may hold a million values.
            var described = ""
            for (index, element) in elements.enumerated() {
                if described.count >= DisplayText.fieldLimit { break }
                described += (index == 0 ? "" : ", ") + describe("", element, currency: currency)
            }
            return "[" + described.prefix(DisplayText.fieldLimit) + "]"
        case .object: return "{...}"
        }
    }

    /// Milliunits as a decimal amount: 12990 is "12.99", 1000 is "1.00", 5 is "0.005".
    private static func amount(milliunits text: String) -> String? {
        guard let value = Int64(text) else { return nil }
        let magnitude = value.magnitude
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        if fraction.hasSuffix("0") { fraction.removeLast() }
        return (value < 0 ? "-" : "") + "\(magnitude / 1000).\(fraction)"
    }

    private static func text(_ value: StrictJSON.Value?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    private static func name(_ kind: SignedDataKind) -> String {
        switch kind {
        case .transaction: "transaction"
        case .renewalInfo: "renewal info"
        case .appTransaction: "app transaction"
        case .notification: "notification"
        }
    }

    /// Followed by spaces up to `width` characters; never cut.
    private static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
