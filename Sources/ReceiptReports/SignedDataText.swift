#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// StoreKit 2 tokens in people's words, for --format text: the verdict and the chain first,
/// then the payload's members with dates as RFC 3339 and money as an amount in its currency,
/// then a notification's nested tokens. Every text a token carries is escaped and bounded.
package struct SignedDataText {
    package let style: Style
    package let showDetails: Bool
    /// Whether verdicts are reported (not with --no-verify).
    package let verified: Bool

    /// Members whose milliseconds are shown as an amount (milliunits of `currency`).
    static let moneyMembers: Set<String> = ["price", "renewalPrice", "commitmentPrice", "taxExclusivePrice", "estimatedTax",
                                            "commitmentRenewalPrice"]
    /// Members holding nested tokens, shown as their own inspection below.
    static let tokenMembers: Set<String> = ["signedTransactionInfo", "signedRenewalInfo", "signedAppTransactionInfo"]

    package func render(_ result: DumpResult, tokens: [SignedDataInspection]) -> String {
        var lines: [String] = [style.bold("File: " + DisplayText.escape(result.file))]
        for token in tokens {
            append(token, result: result, indent: "  ", to: &lines)
        }
        if let reconciliation = result.reconciliation {
            let missed = reconciliation.notCredited.map { DisplayText.escape($0, limit: DisplayText.cellLimit) }
            lines.append("  Not yet credited (\(missed.count)): " + (missed.isEmpty ? "none" : style.yellow(missed.joined(separator: ", "))))
            let unknown = reconciliation.notInReceipt.map { DisplayText.escape($0, limit: DisplayText.cellLimit) }
            lines.append("  Credited but not in these tokens (\(unknown.count)): " + (unknown.isEmpty ? "none" : unknown.joined(separator: ", ")))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func append(_ token: SignedDataInspection, result: DumpResult, indent: String, to lines: inout [String]) {
        func field(_ name: String, _ value: String) {
            lines.append(indent + (name + ":").padded(to: 30) + value)
        }
        let kind = (token.kind ?? token.expectedKind).map(Self.name) ?? "token"
        field("Token", kind + (token.member.map { " (\($0))" } ?? ""))
        let verdict = result.verdict(of: token)
        let failure = verified || token.readError != nil ? token.failure : nil
        let report = try? token.verification?.get()
        var line = SupportView.verdictLine(verdict, report: verdict == .verified || verdict == .notAccepted ? report : nil,
                                           code: failure?.code.name, reason: failure?.reason)
        if verdict == .notAccepted, let report {
            line.detail = " (\(report.mode.rawValue), certificates valid at \(RFC3339.string(from: report.validationTime)))"
        }
        if let judgedAt = result.tokensJudgedAt, report != nil {
            line.detail += " (judged at \(RFC3339.string(from: judgedAt)), given with --at, not the signed date)"
        }
        let colour = verdict == .verified ? style.green : verdict == .notChecked ? style.yellow : style.red
        field("Verdict", colour(line.headline) + line.detail + (verdict == .notChecked ? " (--no-verify)" : ""))
        for check in token.checks {
            let outcome = switch check.outcome {
            case .passed: style.green("PASS")
            case .failed: style.red("FAIL")
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
            appendMembers(members, currency: Self.text(token.payload?["currency"]), indent: indent + "  ", to: &lines)
        }
        for nested in token.nested {
            append(nested, result: result, indent: indent + "  ", to: &lines)
        }
    }

    private func appendMembers(_ members: [(key: String, value: StrictJSON.Value)], currency: String?, indent: String,
                               to lines: inout [String]) {
        for (key, value) in members {
            let name = DisplayText.escape(key, limit: DisplayText.cellLimit)
            switch value {
            case .object(let inner):
                lines.append(indent + name + ":")
                appendMembers(inner, currency: Self.text(value["currency"]) ?? currency, indent: indent + "  ", to: &lines)
            default:
                lines.append(indent + (name + ":").padded(to: 30 - indent.count + 2) + describe(key, value, currency: currency))
            }
        }
    }

    /// One value in people's words.
    private func describe(_ key: String, _ value: StrictJSON.Value, currency: String?) -> String {
        switch value {
        case .string(let text):
            if Self.tokenMembers.contains(key) { return "(a token of \(text.utf8.count) bytes, verified below)" }
            return "\"" + DisplayText.escape(text, limit: DisplayText.fieldLimit) + "\""
        case .number(let text):
            if key.hasSuffix("Date"), let date = UnixMilliseconds.date(from: text) {
                return RFC3339.string(from: date) + " (\(DisplayText.escape(text, limit: DisplayText.fieldLimit)))"
            }
            if Self.moneyMembers.contains(key), let amount = Self.amount(milliunits: text) {
                return amount + (currency.map { " " + DisplayText.escape($0, limit: DisplayText.cellLimit) } ?? "") + " (\(text) milliunits)"
            }
            return DisplayText.escape(text, limit: DisplayText.fieldLimit)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array(let elements):
            return "[" + elements.map { describe("", $0, currency: currency) }.joined(separator: ", ").prefix(DisplayText.fieldLimit) + "]"
        case .object: return "{...}"
        }
    }

    /// Milliunits as a decimal amount: 12990 is "12.99", 1000 is "1.00", 5 is "0.005".
    static func amount(milliunits text: String) -> String? {
        guard let value = Int64(text) else { return nil }
        let magnitude = value.magnitude
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        if fraction.hasSuffix("0") { fraction.removeLast() }
        return (value < 0 ? "-" : "") + "\(magnitude / 1000).\(fraction)"
    }

    static func text(_ value: StrictJSON.Value?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    static func name(_ kind: SignedDataKind) -> String {
        switch kind {
        case .transaction: "transaction"
        case .renewalInfo: "renewal info"
        case .appTransaction: "app transaction"
        case .notification: "notification"
        }
    }

    /// The bundle id and environment a payload names (a notification's in `data`, `summary`,
    /// `externalPurchaseToken` or `appData`), for the summary line.
    static func identity(_ payload: StrictJSON.Value) -> (bundleID: String, environment: String) {
        let source = ["data", "summary", "externalPurchaseToken", "appData"].lazy.compactMap { payload[$0] }.first ?? payload
        return (text(source["bundleId"]) ?? "-", text(source["environment"]) ?? text(source["receiptType"]) ?? "-")
    }
}
