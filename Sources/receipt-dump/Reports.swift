import Foundation
import ReceiptParser

/// The --format text output: for people reading a support ticket.
enum TextReport {
    static func render(_ result: DumpResult) -> String {
        var lines: [String] = ["File: \(result.file)"]
        func field(_ name: String, _ value: String?) {
            guard let value else { return }
            lines.append("  " + (name + ":").padding(toLength: 30, withPad: " ", startingAt: 0) + value)
        }
        switch (result.readError, result.verification) {
        case (let problem?, _):
            field("Verdict", "UNREADABLE (\(problem.code)): \(problem.reason)")
        case (nil, .success(let report)?):
            field("Verdict", "VERIFIED (\(report.mode.rawValue), \(report.digestAlgorithm), certificates valid at \(RFC3339.string(from: report.validationTime)))")
        case (nil, .failure(let problem)?):
            field("Verdict", "NOT VERIFIED (\(problem.code)): \(problem.reason)")
        case (nil, nil):
            field("Verdict", "not checked (--no-verify)")
        }
        let chain: [CertificateSummary]
        if case .success(let report)? = result.verification { chain = report.chain } else { chain = result.certificates }
        if !chain.isEmpty {
            lines.append("  Certificates:")
            for (index, certificate) in chain.enumerated() {
                lines.append("    [\(index)] \(certificate.subject)")
                lines.append("        issuer \(certificate.issuer)")
                lines.append("        valid \(RFC3339.string(from: certificate.notBefore)) to \(RFC3339.string(from: certificate.notAfter)), SHA-256 \(certificate.sha256)")
            }
        }
        guard let receipt = result.receipt else { return lines.joined(separator: "\n") + "\n" }

        field("Receipt type", receipt.receiptType)
        field("Bundle ID", receipt.bundleID)
        field("Application version", receipt.applicationVersion)
        field("Original application version", receipt.originalApplicationVersion)
        field("Created", receipt.creationDate.map(RFC3339.string(from:)))
        field("Expires", receipt.expirationDate.map(RFC3339.string(from:)))
        field("Original purchase", receipt.originalPurchaseDate.map(RFC3339.string(from:)))
        field("App item ID", receipt.appItemID.map(String.init))
        field("Download ID", receipt.downloadID.map(String.init))
        field("Version external identifier", receipt.versionExternalIdentifier.map(String.init))
        field("Age rating", receipt.ageRating)
        field("Opaque value", receipt.opaqueValue?.hex)
        field("SHA-1 hash", receipt.sha1Hash?.hex)
        lines.append("  In-app purchases: \(receipt.inAppPurchases.count)")
        for (index, purchase) in receipt.inAppPurchases.enumerated() {
            var parts = ["#\(index + 1) \(purchase.productID ?? "?")", "transaction \(purchase.transactionID ?? "?")"]
            if let original = purchase.originalTransactionID, original != purchase.transactionID {
                parts.append("original \(original)")
            }
            if let date = purchase.purchaseDate { parts.append("purchased \(RFC3339.string(from: date))") }
            if let date = purchase.expiresDate { parts.append("expires \(RFC3339.string(from: date))") }
            if let date = purchase.cancellationDate { parts.append("CANCELLED \(RFC3339.string(from: date))") }
            if let quantity = purchase.quantity, quantity != 1 { parts.append("quantity \(quantity)") }
            if purchase.isTrialPeriod == true { parts.append("trial") }
            if purchase.isInIntroOfferPeriod == true { parts.append("intro offer") }
            if let offer = purchase.promotionalOfferID, !offer.isEmpty { parts.append("offer \(offer)") }
            lines.append("    " + parts.joined(separator: ", "))
        }
        lines.append("  Attributes (type version value):")
        for attribute in receipt.attributes {
            lines.append("    \(attribute.type) v\(attribute.version) \(describe(attribute))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A raw attribute's value: its text when it is a short DER string, else hex.
    private static func describe(_ attribute: ReceiptAttribute) -> String {
        let value = attribute.value
        if attribute.type == 17 { return "(in-app purchase, \(value.count) bytes)" }
        if value.count >= 2, value.count < 130, value[1] < 0x80, Int(value[1]) == value.count - 2,
           value[0] == 0x0C || value[0] == 0x16 {
            return "\"" + String(decoding: value.dropFirst(2), as: UTF8.self) + "\""
        }
        let hex = value.hex
        return hex.count > 96 ? String(hex.prefix(96)) + "... (\(value.count) bytes)" : hex
    }
}

/// The --format summary output: one tab-separated line per receipt.
enum SummaryReport {
    static func render(_ result: DumpResult) -> String {
        let verdict = result.problem.map { "\(result.readError == nil ? result.verdict : "unreadable") (\($0.code))" } ?? result.verdict
        let receipt = result.receipt
        return [result.file, verdict, receipt?.bundleID ?? "-", receipt?.receiptType ?? "-",
                receipt.map { "\($0.inAppPurchases.count) in-app" } ?? "-"].joined(separator: "\t")
    }
}

/// The --format json output: the full typed model, one object per file (an array for several).
enum JSONReport {
    static func render(_ results: [DumpResult]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        let data = results.count == 1 ? try encoder.encode(results[0]) : try encoder.encode(results)
        return String(decoding: data, as: UTF8.self)
    }
}
