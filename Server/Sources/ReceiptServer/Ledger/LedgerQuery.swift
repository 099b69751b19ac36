import Foundation
import Hummingbird
import HummingbirdCore
import ReceiptLedger
import ReceiptParser

/// The query of a ledger route, each route naming the parameters it takes: `limit` (default
/// 1 000, at most 10 000), `olderThan` in seconds (default 0), `at` (RFC 3339; the ledger's now
/// when absent) and `originalTransactionId`. Unknown or repeated parameters are refused, so a
/// misspelt one cannot silently answer something else.
struct LedgerQuery {
    enum Parameter: String {
        case limit, olderThan, at, originalTransactionId
    }

    static let maximumLimit = 10_000

    var limit = Ledger.defaultLimit
    var olderThanSeconds = 0
    var at: Date?
    var originalTransactionId: String?

    init(_ uri: URI, accepting accepted: [Parameter]) throws(Refusal) {
        var named = Set<Substring>()
        for (key, value) in uri.queryParameters {
            guard named.insert(key).inserted else { throw .invalid(member: String(key), "the query names it twice") }
            guard let parameter = Parameter(rawValue: String(key)), accepted.contains(parameter) else {
                let names = accepted.map(\.rawValue).joined(separator: ", ")
                throw .invalid(member: String(key), "unknown query parameter; this route takes \(names)")
            }
            switch parameter {
            case .limit:
                limit = try Self.integer(value, key, in: 1...Self.maximumLimit)
            case .olderThan:
                olderThanSeconds = try Self.integer(value, key, in: 0...(1 << 40))
            case .at:
                // Hummingbird has decoded the percent-encoding already (a + is a +).
                guard let instant = RFC3339.date(from: String(value)) else {
                    throw .invalid(member: "at", "not an RFC 3339 instant, such as 2025-06-01T12:00:00Z")
                }
                at = instant
            case .originalTransactionId:
                originalTransactionId = try LedgerIdentifier.validated(String(value), member: "originalTransactionId")
            }
        }
    }

    private static func integer(_ text: Substring, _ key: Substring, in range: ClosedRange<Int>) throws(Refusal) -> Int {
        guard !text.isEmpty, text.count <= 13, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let number = Int(text), range.contains(number) else {
            throw .invalid(member: String(key), "not a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}
