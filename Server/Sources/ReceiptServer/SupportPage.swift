import Foundation
import ReceiptParser

/// The page support staff use: paste a base64 receipt or StoreKit 2 signed data, see the
/// verdict, the receipt's fields and its purchases or each token's kind, chain and payload, the
/// same view as `receipt-dump --format text`. Server-rendered, no scripts and no external
/// assets. Text from the input is display text (``DisplayText``: controls and bidirectional
/// characters escaped, long values shortened) and then HTML-escaped.
enum SupportPage {
    /// What was pasted came to.
    enum Result: Sendable {
        case receipt(ReceiptService.Outcome)
        case signedData(SignedDataOutcome)
    }

    /// - Parameter signedDataVerifier: the verifier tokens were inspected with, for the instant
    ///   they were judged at when it fixes one (`--at`).
    /// - Parameter ledgerSection: the ledger lookup (``ledgerSection(_:)``) when the server has a ledger.
    static func render(_ result: Result?, input: String, now: Date, signedDataVerifier: SignedDataVerifier,
                       ledgerSection: String = "") -> String {
        var body = """
        <h1>Receipt check</h1>
        <form method="post" action="/">
        <label for="receipt">Base64 receipt or verifyReceipt request body; StoreKit 2 token (JWS) or a JSON body of tokens</label>
        <textarea id="receipt" name="receipt" rows="8" spellcheck="false">\(escape(input))</textarea>
        <button type="submit">Check</button>
        </form>

        """
        switch result {
        case .receipt(let outcome)?: body += self.result(outcome, now: now)
        case .signedData(let outcome)?: body += self.result(outcome, verifier: signedDataVerifier)
        case nil: break
        }
        body += ledgerSection
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Receipt check</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; max-width: 80em; }
        textarea { width: 100%; font-family: monospace; }
        table { border-collapse: collapse; margin: 1em 0; }
        th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; font-family: monospace; }
        .verified { color: #070; font-weight: bold; }
        .failed { color: #b00; font-weight: bold; }
        </style>
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }

    private static func result(_ outcome: ReceiptService.Outcome, now: Date) -> String {
        let verified: VerifiedReceipt
        var text = ""
        switch outcome {
        case .rejected(let error):
            return "<p id=\"verdict\" class=\"failed\">\(escape(SupportView.verdict(.failure(error))))</p>\n"
        case .notAccepted(let receipt, _, _):
            verified = receipt
            let refusal = outcome.refusal!
            let line = SupportView.verdictLine(.notAccepted, code: String(refusal.receiptStatus ?? 0), reason: refusal.reason)
            text += "<p id=\"verdict\" class=\"failed\">\(escape(line.headline + line.detail))</p>\n"
        case .accepted(let receipt):
            verified = receipt
            text += "<p id=\"verdict\" class=\"verified\">\(escape(SupportView.verdict(.success(receipt.verification))))</p>\n"
        }
        let receipt = verified.receipt
        text += "<table id=\"chain\"><tr><th>Certificate</th><th>Valid from</th><th>Valid to</th></tr>\n"
        for certificate in verified.verification.chain {
            text += "<tr><td>\(escape(DisplayText.escape(certificate.subject, limit: DisplayText.reasonLimit)))</td><td>\(RFC3339.string(from: certificate.notBefore))</td><td>\(RFC3339.string(from: certificate.notAfter))</td></tr>\n"
        }
        text += "</table>\n<table id=\"fields\">\n"
        for (label, value) in SupportView.fields(of: receipt) {
            text += "<tr><th>\(escape(label))</th><td>\(escape(value))</td></tr>\n"
        }
        text += "</table>\n<h2>In-app purchases: \(receipt.inAppPurchases.count)</h2>\n"
        if !receipt.inAppPurchases.isEmpty {
            text += "<table id=\"purchases\">\n<tr>" + SupportView.purchaseColumns.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
            for row in SupportView.purchaseRows(receipt.inAppPurchases) {
                text += "<tr>" + row.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n"
            }
            text += "</table>\n"
        }
        text += "<p id=\"status\">Subscriptions at \(RFC3339.string(from: now)): \(escape(SupportView.subscriptionStatus(of: receipt, at: now)))</p>\n"
        return text
    }

    /// The server's verdict on the whole input, then each token as receipt-dump's text shows
    /// it (SupportView: kind, verdict, checks, chain, payload with RFC 3339 dates, nested
    /// tokens), HTML-escaped.
    private static func result(_ outcome: SignedDataOutcome, verifier: SignedDataVerifier) -> String {
        let line: (headline: String, detail: String)
        if let refusal = outcome.refusal {
            let reason = refusal.member.map { "\($0): \(refusal.reason)" } ?? refusal.reason
            line = SupportView.verdictLine(refusal.verdict ?? .notVerified, code: refusal.code, reason: reason)
        } else {
            line = SupportView.verdictLine(.verified, report: try? outcome.inspections.first?.verification?.get())
        }
        var judgedAt: Date?
        if case .instant(let instant) = verifier.policy.validationTime { judgedAt = instant }
        let tokens = SupportView.tokenLines(outcome.inspections, judgedAt: judgedAt).joined(separator: "\n") + "\n"
        return "<p id=\"verdict\" class=\"\(outcome.refusal == nil ? "verified" : "failed")\">\(escape(line.headline + line.detail))</p>\n"
            + "<pre id=\"tokens\">\(escape(tokens))</pre>\n"
    }

    /// HTML-escaped, byte by byte: a `<` joined to a combining mark is one Character to Swift
    /// but still a `<` to the browser, so matching Characters would let it through (and the five
    /// bytes escaped never occur inside a multi-byte UTF-8 sequence). The bytes between them are
    /// copied a run at a time: a pasted input is anyone's, up to the body limit.
    static func escape(_ text: String) -> String {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count)
        var text = text
        text.withUTF8 { bytes in
            var run = 0
            for (index, byte) in bytes.enumerated() {
                let entity: StaticString
                switch byte {
                case UInt8(ascii: "&"): entity = "&amp;"
                case UInt8(ascii: "<"): entity = "&lt;"
                case UInt8(ascii: ">"): entity = "&gt;"
                case UInt8(ascii: "\""): entity = "&quot;"
                case UInt8(ascii: "'"): entity = "&#39;"
                default: continue
                }
                escaped.append(contentsOf: bytes[run..<index])
                entity.withUTF8Buffer { escaped.append(contentsOf: $0) }
                run = index + 1
            }
            escaped.append(contentsOf: bytes[run...])
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// The value of a field in an `application/x-www-form-urlencoded` body; nil when absent.
    /// Names are decoded and compared byte for byte, and a field named twice is refused, as
    /// duplicate JSON keys are: two readers could take different ones. Bytes of the body that are
    /// not UTF-8 read as U+FFFD; a value with a `%` not followed by two hex digits, or whose escapes
    /// decode to bytes that are not UTF-8, reads as empty. Read byte by byte, in one pass: the body
    /// is anyone's, up to the size limit, before any token or gate (through Foundation's string
    /// search and decoding, a body of a million empty fields took seconds).
    static func formValue(named name: String, in body: [UInt8]) throws(Refusal) -> String? {
        let text = Array(String(decoding: body, as: UTF8.self).utf8)
        var found: String?
        var start = text.startIndex
        while start < text.endIndex {
            let end = text[start...].firstIndex(of: UInt8(ascii: "&")) ?? text.endIndex
            let pair = text[start..<end]
            start = end + 1
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")), isName(name, pair[..<equals]) else { continue }
            guard found == nil else {
                throw Refusal.invalid(member: name, "the form names \"\(name)\" twice")
            }
            found = formDecoded(pair[(equals + 1)...]) ?? ""
        }
        return found
    }

    /// Whether a form field's encoded `key` decodes to `name`; decoded only when it holds escapes.
    private static func isName(_ name: String, _ key: ArraySlice<UInt8>) -> Bool {
        if !key.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) { return key.elementsEqual(name.utf8) }
        return formDecoded(key)?.utf8.elementsEqual(name.utf8) == true
    }

    /// A form field's name or value decoded (`+` is a space, `%XX` a byte); nil when a `%` is not
    /// followed by two hex digits or the bytes are not UTF-8.
    private static func formDecoded(_ part: ArraySlice<UInt8>) -> String? {
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(part.count)
        var index = part.startIndex
        while index < part.endIndex {
            let byte = part[index]
            switch byte {
            case UInt8(ascii: "+"):
                decoded.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index + 2 < part.endIndex, let high = hexValue(part[index + 1]), let low = hexValue(part[index + 2]) else { return nil }
                decoded.append(high << 4 | low)
                index += 2
            default:
                decoded.append(byte)
            }
            index += 1
        }
        // Decoding repairs what is not UTF-8, so the bytes come back unchanged only when they are
        // (`String(validating:)` needs macOS 15).
        let text = String(decoding: decoded, as: UTF8.self)
        return text.utf8.elementsEqual(decoded) ? text : nil
    }
}
