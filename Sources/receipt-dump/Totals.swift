import ReceiptParser

/// Counts per verdict, printed on standard error after a batch.
struct Totals {
    let line: String
    init(_ outcomes: [Outcome]) {
        var counts: [Verdict: Int] = [:]
        for outcome in outcomes { counts[outcome.verdict, default: 0] += 1 }
        let failedChecks = outcomes.filter(\.failedCheck).count
        let tokens = outcomes.filter(\.isSignedData).count
        // Named for what was read: "43 receipts", "55 tokens", "3 receipts and 2 tokens".
        func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        let receipts = outcomes.count - tokens
        var parts = [tokens == 0 ? counted(receipts, "receipt")
                     : receipts == 0 ? counted(tokens, "token")
                     : counted(receipts, "receipt") + " and " + counted(tokens, "token")]
        // Every run names these three; a verdict receipt-dump cannot give otherwise only when it occurred.
        for verdict in Verdict.allCases where [.verified, .notVerified, .unreadable].contains(verdict) || counts[verdict] != nil {
            parts.append("\(counts[verdict, default: 0]) \(verdict.rawValue)")
        }
        if failedChecks > 0 { parts.append("\(failedChecks) failed a check") }
        line = "Totals: " + parts.joined(separator: ", ") + "\n"
    }
}
