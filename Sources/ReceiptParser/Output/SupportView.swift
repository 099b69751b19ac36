#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What support staff see of a receipt or of StoreKit 2 tokens, as labelled text: shared by
/// `receipt-dump --format text` and the server's page so both show the same thing.
///
/// Every string returned is display text: values from the input have been through
/// ``DisplayText/escape(_:limit:)`` (controls escaped, long values shortened), so callers add
/// only their own layout.
public enum SupportView {
    /// The receipt's named fields as (label, value) pairs, absent ones left out; each value
    /// escaped and at most ``DisplayText/fieldLimit`` characters.
    public static func fields(of receipt: Receipt) -> [(label: String, value: String)] {
        func date(_ value: Date?) -> String? { value.map(RFC3339.string(from:)) }
        let pairs: [(String, String?)] = [
            ("Receipt type", receipt.receiptType),
            ("Bundle ID", receipt.bundleID),
            ("Application version", receipt.applicationVersion),
            ("Original application version", receipt.originalApplicationVersion),
            ("Created", date(receipt.creationDate)),
            ("Expires", date(receipt.expirationDate)),
            ("Original purchase", date(receipt.originalPurchaseDate)),
            ("App item ID", receipt.appItemID.map(String.init)),
            ("Download ID", receipt.downloadID.map(String.init)),
            ("Version external identifier", receipt.versionExternalIdentifier.map(String.init)),
            ("Age rating", receipt.ageRating),
            ("Opaque value", receipt.opaqueValue?.hex),
            ("SHA-1 hash", receipt.sha1Hash?.hex),
        ]
        return pairs.compactMap { label, value in value.map { (label, DisplayText.escape($0, limit: DisplayText.fieldLimit)) } }
    }

    /// The columns of the purchase table.
    public static let purchaseColumns = ["PURCHASED", "PRODUCT", "TRANSACTION", "ORIGINAL", "EXPIRES", "CANCELLED", "QTY", "FLAGS"]

    /// One row per purchase, oldest first, cells as in ``purchaseColumns``; each cell escaped
    /// and at most ``DisplayText/cellLimit`` characters, so no row can widen a table unboundedly.
    public static func purchaseRows(_ purchases: [InAppPurchase]) -> [[String]] {
        func date(_ value: Date?) -> String { value.map(RFC3339.string(from:)) ?? "-" }
        func cell(_ value: String?) -> String { value.map { DisplayText.escape($0, limit: DisplayText.cellLimit) } ?? "-" }
        return purchases
            .sorted { ($0.purchaseDate ?? .distantPast) < ($1.purchaseDate ?? .distantPast) }
            .map { purchase in
                var flags: [String] = []
                if purchase.isTrialPeriod == true { flags.append("trial") }
                if purchase.isInIntroOfferPeriod == true { flags.append("intro") }
                if let offer = purchase.promotionalOfferID, !offer.isEmpty { flags.append("offer:" + cell(offer)) }
                if purchase.cancellationDate != nil { flags.append("REFUNDED") }
                return [date(purchase.purchaseDate), cell(purchase.productID), cell(purchase.transactionID),
                        cell(purchase.originalTransactionID), date(purchase.expiresDate), date(purchase.cancellationDate),
                        purchase.quantity.map(String.init) ?? "-", flags.joined(separator: " ")]
            }
    }

    /// The subscription status line: what is active at `date`.
    public static func subscriptionStatus(of receipt: Receipt, at date: Date) -> String {
        let active = receipt.activeSubscriptions(at: date)
        guard !active.isEmpty else { return "none active" }
        return active.map { "\(DisplayText.escape($0.productID ?? "?", limit: DisplayText.cellLimit)) active until \($0.expiresDate.map(RFC3339.string(from:)) ?? "?")" }
            .joined(separator: "; ")
    }

    /// The verdict line for a verification outcome; the reason escaped and bounded.
    public static func verdict(_ outcome: Result<VerificationReport, ReceiptError>) -> String {
        let line: (headline: String, detail: String)
        switch outcome {
        case .success(let report): line = verdictLine(.verified, report: report)
        case .failure(let error): line = verdictLine(Verdict(failure: error), code: error.code.name, reason: error.reason)
        }
        return line.headline + line.detail
    }

    /// A verdict as support staff read it, in two parts so a terminal can colour the first:
    /// the headline (`VERIFIED`, `NOT VERIFIED (code)`, `UNREADABLE (code)`, `not checked`) and
    /// what follows it (for `verified`, the chain's terms; otherwise `: ` and the reason, escaped
    /// and bounded).
    public static func verdictLine(_ verdict: Verdict, report: VerificationReport? = nil, code: String? = nil,
                                   reason: String? = nil) -> (headline: String, detail: String) {
        // "not checked" is no verdict on the data, so it is not shouted.
        var headline = verdict == .notChecked ? verdict.rawValue : verdict.rawValue.uppercased()
        if let code { headline += " (\(code))" }
        // The chain's terms only for a verdict they explain: a verified receipt whose payload
        // cannot be read is unreadable, and its reason is what matters.
        if verdict == .verified, let report {
            return (headline, " (\(report.mode.rawValue), \(report.digestAlgorithm), certificates valid at \(RFC3339.string(from: report.validationTime)))")
        }
        return (headline, reason.map { ": " + DisplayText.escape($0, limit: DisplayText.reasonLimit) } ?? "")
    }
}
