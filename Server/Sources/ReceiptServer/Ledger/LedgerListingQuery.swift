import Hummingbird
import HummingbirdCore
import ReceiptLedger

/// The query of a ledger listing: `limit` (default 1 000, at most 10 000) and, for the missed
/// orders, `olderThan` in seconds (default 0). Unknown or repeated parameters are refused, so a
/// misspelt one cannot silently list something else.
struct LedgerListingQuery {
    static let maximumLimit = 10_000

    var limit = Ledger.defaultLimit
    var olderThanSeconds = 0

    init(_ uri: URI, acceptsOlderThan: Bool = false) throws(Refusal) {
        var named = Set<Substring>()
        for (key, value) in uri.queryParameters {
            guard named.insert(key).inserted else { throw .invalid(member: String(key), "the query names it twice") }
            switch key {
            case "limit":
                limit = try Self.integer(value, key, in: 1...Self.maximumLimit)
            case "olderThan" where acceptsOlderThan:
                olderThanSeconds = try Self.integer(value, key, in: 0...(1 << 40))
            default:
                throw .invalid(member: String(key), "unknown query parameter; this listing takes limit\(acceptsOlderThan ? " and olderThan" : "")")
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
