#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONEncoder {
    /// The encoder for the models' `Codable` JSON, as receipt-dump and receipt-server write it:
    /// keys sorted (stable output to diff and test) and slashes unescaped. The models write
    /// their own dates (``JSONWritable``); a date of a caller's own value is written as they are,
    /// RFC 3339 in UTC with milliseconds when it has them (`2024-05-01T12:00:00Z`), the form
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

extension JSONDecoder {
    /// The decoder that reads back what ``Foundation/JSONEncoder/receiptModels(prettyPrinted:)``
    /// writes: dates as RFC 3339 strings (any form ``RFC3339`` accepts).
    public static func receiptModels() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 date: \(text)")
            }
            return date
        }
        return decoder
    }
}
