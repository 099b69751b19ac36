#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser
import ReceiptReports

/// Transaction identifiers the server has already credited: one per line, or a JSON array.
/// Kept byte for byte: a credited id that only looks like the receipt's is not that one.
enum CreditedList {
    static func read(_ path: String) throws -> Set<ExactIdentifier> {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(code: "unreadableFile", reason: "cannot read \(path)")
        }
        let text = String(decoding: data, as: UTF8.self).trimming { $0.isBlank || $0.isLineBreak }
        if text.hasPrefix("[") {
            // The strict reader, as for receipts, over the bytes as read (invalid UTF-8 is refused).
            let value: StrictJSON.Value
            do {
                value = try StrictJSON.parse([UInt8](data))
            } catch {
                throw Problem(code: "invalidCreditedList", reason: "\(path) is not a JSON array: \(error.reason)")
            }
            guard case .array(let elements) = value else {
                throw Problem(code: "invalidCreditedList", reason: "\(path) is not a JSON array")
            }
            return Set(elements.compactMap(transactionID).map(ExactIdentifier.init))
        }
        return Set(text.split(whereSeparator: \.isNewline)
            .map { $0.trimming(\.isBlank) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map(ExactIdentifier.init))
    }

    /// One member of a JSON list: a transaction id as a string or a number (as written). Anything
    /// else (null, a boolean, an array or object) is skipped rather than failing the whole list.
    private static func transactionID(_ element: StrictJSON.Value) -> String? {
        switch element {
        case .string(let text), .number(let text): return text
        default: return nil
        }
    }
}
