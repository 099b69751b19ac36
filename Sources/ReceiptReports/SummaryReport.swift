#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The --format summary output: exactly one tab-separated line per receipt.
package enum SummaryReport {
    package static func render(_ result: DumpResult) -> String {
        var verdict = result.verdict.rawValue
        if let problem = result.problem { verdict += " (\(problem.code))" }
        if result.problem == nil, result.checks.contains(where: { !$0.passed }) { verdict += " (check failed)" }
        if let tokens = result.tokens {
            let first = tokens.first
            let kinds = tokens.map { ($0.kind ?? $0.expectedKind)?.rawValue ?? "token" }
            let identity = first?.payload.map(identity) ?? (bundleID: "-", environment: "-")
            return [DisplayText.escape(result.file), verdict,
                    DisplayText.escape(identity.bundleID, limit: DisplayText.fieldLimit),
                    DisplayText.escape(identity.environment, limit: DisplayText.cellLimit),
                    tokens.count == 1 ? kinds[0] : "\(tokens.count) tokens (\(kinds.joined(separator: ",")))"].joined(separator: "\t")
        }
        let receipt = result.receipt
        // One line per receipt whatever the fields hold: tabs and newlines in them are escaped.
        return [DisplayText.escape(result.file), verdict,
                DisplayText.escape(receipt?.bundleID ?? "-", limit: DisplayText.fieldLimit),
                DisplayText.escape(receipt?.receiptType ?? "-", limit: DisplayText.cellLimit),
                receipt == nil ? "-" : "\(result.shownInAppPurchases) in-app"].joined(separator: "\t")
    }

    /// The bundle id and environment a payload names (a notification's in `data`, `summary`,
    /// `externalPurchaseToken` or `appData`).
    private static func identity(_ payload: StrictJSON.Value) -> (bundleID: String, environment: String) {
        func text(_ value: StrictJSON.Value?) -> String? {
            if case .string(let text)? = value { return text }
            return nil
        }
        let source = ["data", "summary", "externalPurchaseToken", "appData"].lazy.compactMap { payload[$0] }.first ?? payload
        return (text(source["bundleId"]) ?? "-", text(source["environment"]) ?? text(source["receiptType"]) ?? "-")
    }
}
