#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONEncoder {
    /// The encoder for the models' `Codable` JSON, as receipt-dump and receipt-server write it:
    /// keys sorted (stable output to diff and test), slashes unescaped, and dates as RFC 3339
    /// strings in UTC with milliseconds when they have them (`2024-05-01T12:00:00Z`), the form
    /// ``RFC3339`` reads back.
    public static func receiptModels(prettyPrinted: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                                                 : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        return encoder
    }
}
