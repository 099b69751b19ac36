#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The --format text output: for people reading a support ticket.
package struct TextReport {
    package let style: Style
    /// The instant subscription status is reported for.
    package let statusTime: Date
    /// --certs: certificate extensions and markers too.
    package let showDetails: Bool

    package func render(_ result: DumpResult) -> String {
        if let tokens = result.tokens { return render(result, tokens: tokens) }
        var lines: [String] = [style.bold("File: " + DisplayText.escape(result.file))]
        func field(_ name: String, _ value: String?) {
            guard let value else { return }
            lines.append("  " + (name + ":").padded(to: 30) + value)
        }
        let report = try? result.verification?.get()  // verdictLine shows its terms only for a verified receipt
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

        if let reconciliation = result.reconciliation { lines += self.lines(of: reconciliation, source: "this receipt") }

        lines.append("  Attributes (type version value):")
        for attribute in receipt.attributes {
            let name = attribute.attributeType.name.map { " (\($0))" } ?? ""
            lines.append("    \(attribute.type)\(name) v\(attribute.version) \(Self.describe(attribute))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// StoreKit 2 tokens: the page's view of each (SupportView), under the file's name.
    private func render(_ result: DumpResult, tokens: [SignedDataInspection]) -> String {
        var lines: [String] = [style.bold("File: " + DisplayText.escape(result.file))]
        lines += SupportView.tokenLines(tokens, verified: result.tokensVerified, judgedAt: result.tokensJudgedAt) { text, tone in
            switch tone {
            case .good: style.green(text)
            case .caution: style.yellow(text)
            case .bad: style.red(text)
            }
        }
        if let subscriptions = result.subscriptions { lines += self.lines(of: subscriptions) }
        if let reconciliation = result.reconciliation { lines += self.lines(of: reconciliation, source: "these tokens") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What the verified tokens say of each subscription at the status time.
    private func lines(of subscriptions: (at: Date, entries: [SubscriptionState])) -> [String] {
        var lines = ["  Subscriptions at \(RFC3339.string(from: subscriptions.at)) (\(subscriptions.entries.count)):"]
        for entry in subscriptions.entries {
            let status = entry.entitled ? style.green("\(entry.status.rawValue), entitled")
                : style.yellow("\(entry.status.rawValue), not entitled")
            var facts = ["latest \(DisplayText.escape(entry.transactionId ?? "-", limit: DisplayText.cellLimit))"]
            if let expires = entry.expiresDate { facts.append("expires \(RFC3339.string(from: expires))") }
            if let grace = entry.gracePeriodExpiresDate { facts.append("grace until \(RFC3339.string(from: grace))") }
            if let revoked = entry.revocationDate { facts.append("revoked \(RFC3339.string(from: revoked))") }
            if let renews = entry.autoRenewStatus {
                facts.append(renews ? "renews to \(DisplayText.escape(entry.autoRenewProductId ?? "-", limit: DisplayText.cellLimit))" : "auto-renew off")
            }
            lines.append("    \(DisplayText.escape(entry.productId ?? "-", limit: DisplayText.cellLimit)) "
                         + "(original \(DisplayText.escape(entry.originalTransactionId, limit: DisplayText.cellLimit))): "
                         + "\(status); \(facts.joined(separator: ", "))")
        }
        return lines
    }

    /// `--credited`: the missed orders, and what was credited but is not in `source`.
    private func lines(of reconciliation: Reconciliation, source: String) -> [String] {
        let missed = reconciliation.notCredited.map { DisplayText.escape($0, limit: DisplayText.cellLimit) }
        let unknown = reconciliation.notInReceipt.map { DisplayText.escape($0, limit: DisplayText.cellLimit) }
        return ["  Not yet credited (\(missed.count)): " + (missed.isEmpty ? "none" : style.yellow(missed.joined(separator: ", "))),
                "  Credited but not in \(source) (\(unknown.count)): " + (unknown.isEmpty ? "none" : unknown.joined(separator: ", "))]
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
