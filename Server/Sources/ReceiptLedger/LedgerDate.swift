import Foundation

/// Dates as the schema stores them: whole milliseconds since 1970 (BIGINT on every database).
enum LedgerDate {
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
