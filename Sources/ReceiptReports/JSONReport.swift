#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The --format json output: the full typed model of one receipt.
///
/// The text is JSONEncoder's (pretty, sorted keys, RFC 3339 dates) for the whole `DumpResult`,
/// with the invisible characters it leaves raw escaped. Encoded in one go, JSONEncoder's tree
/// would hold every raw attribute of every in-app purchase at once (2 GB for a 33 MB receipt of
/// 3.3 million empty attributes), so the purchases are encoded one at a time and spliced into
/// the result encoded without them: the tree never holds more than one purchase (at most
/// `DecodingLimits.maximumAttributeCount` attributes), and the text is the same, byte for byte.
package enum JSONReport {
    package static func render(_ result: DumpResult) -> String {
        spliced(result) ?? singleShot(result)
    }

    /// The report encoded in one go: for results without in-app purchases, and should the
    /// encoder ever write other text than `spliced` expects or fail.
    package static func singleShot(_ result: DumpResult) -> String {
        do {
            return text(try JSONEncoder.receiptModels(prettyPrinted: true).encode(result))
        } catch {
            // The model holds only strings, numbers and dates; say so if that ever changes.
            return "{\"file\": \(JSONValue.string(result.file).rendered()), \"error\": {\"code\": \"encodingFailed\", \"reason\": \(JSONValue.string("\(error)").rendered())}}"
        }
    }

    /// The report built from parts: the result with no in-app purchases, in which the empty
    /// array `"inAppPurchases" : [\n\n    ]` is replaced by the purchases, each encoded alone
    /// and indented by the 6 spaces of its depth (JSONEncoder indents by 2 per level and leaves
    /// the blank line of an empty array or object unindented). Nil when there are no purchases,
    /// when the encoder fails, or when its text is not as expected; `render` then encodes in
    /// one go, which gives the same text (or the same failure).
    package static func spliced(_ result: DumpResult) -> String? {
        guard let purchases = result.receipt?.inAppPurchases, !purchases.isEmpty else { return nil }
        var skeleton = result
        skeleton.receipt?.inAppPurchases = []
        let encoder = JSONEncoder.receiptModels(prettyPrinted: true)
        var head: String
        var parts: [String] = []
        do {
            head = text(try encoder.encode(skeleton))
            parts.reserveCapacity(purchases.count)
            for purchase in purchases { parts.append(text(try encoder.encode(purchase))) }
        } catch {
            return nil
        }
        // The receipt is at depth 1 of the result, its keys (and the array's `]`) at depth 2,
        // the purchases at depth 3.
        let opening = Array("\n  \"receipt\" : {\n".utf8)
        let emptyArray = Array("\n    \"inAppPurchases\" : [\n\n    ]".utf8)
        let (indent, separator, closing) = (6, Array(",\n".utf8), Array("\n    ".utf8))
        return head.withUTF8 { head -> String? in
            // A raw line feed stands only between tokens (strings escape theirs), and only
            // DumpResult's own keys are indented by 2 and only the receipt's, in it, by 4: the
            // first empty array of purchases after the receipt's key is the receipt's.
            guard let receipt = firstRange(of: opening, in: head, from: 0),
                  let array = firstRange(of: emptyArray, in: head, from: receipt.upperBound) else { return nil }
            let open = array.upperBound - 8     // the `[`
            let close = array.upperBound - 1    // the `]`
            var total = (open + 1) + 1 + separator.count * (parts.count - 1) + closing.count + (head.count - close)
            for index in parts.indices {
                total += parts[index].withUTF8 { indent + indented($0, by: indent, into: nil) }
            }
            return String(unsafeUninitializedCapacity: total) { output in
                var position = 0
                func append(_ bytes: UnsafeBufferPointer<UInt8>) {
                    _ = UnsafeMutableBufferPointer(rebasing: output[position..<(position + bytes.count)]).initialize(fromContentsOf: bytes)
                    position += bytes.count
                }
                append(UnsafeBufferPointer(rebasing: head[...open]))
                output[position] = UInt8(ascii: "\n")
                position += 1
                for index in parts.indices {
                    if index > 0 { separator.withUnsafeBufferPointer { append($0) } }
                    output.baseAddress!.advanced(by: position).initialize(repeating: UInt8(ascii: " "), count: indent)
                    position += indent
                    let destination = output.baseAddress! + position
                    position += parts[index].withUTF8 { indented($0, by: indent, into: destination) }
                    parts[index] = ""   // each part freed once copied
                }
                closing.withUnsafeBufferPointer { append($0) }
                append(UnsafeBufferPointer(rebasing: head[close...]))
                precondition(position == total, "JSONReport: spliced text of unexpected length")
                return position
            }
        }
    }

    /// JSONEncoder's text as the report has it: the invisible characters it leaves raw escaped.
    private static func text(_ data: Data) -> String {
        JSONValue.escapingInvisibleCharacters(in: String(decoding: data, as: UTF8.self))
    }

    /// Copies `text` to `destination` (when given) with `indent` spaces after every line feed
    /// that does not end the text or begin a blank line; returns the length written.
    private static func indented(_ text: UnsafeBufferPointer<UInt8>, by indent: Int, into destination: UnsafeMutablePointer<UInt8>?) -> Int {
        var written = 0
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count && text[end] != UInt8(ascii: "\n") { end += 1 }
            // The line and its line feed, then the next line's extra indentation.
            let line = min(end + 1, text.count) - start
            destination?.advanced(by: written).initialize(from: text.baseAddress! + start, count: line)
            written += line
            start = end + 1
            if start < text.count && text[start] != UInt8(ascii: "\n") {
                destination?.advanced(by: written).initialize(repeating: UInt8(ascii: " "), count: indent)
                written += indent
            }
        }
        return written
    }

    /// Where `pattern` first occurs in `text` at or after `start`.
    private static func firstRange(of pattern: [UInt8], in text: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int>? {
        guard let first = pattern.first, text.count >= pattern.count else { return nil }
        var index = start
        while index <= text.count - pattern.count {
            if text[index] == first && pattern.indices.allSatisfy({ text[index + $0] == pattern[$0] }) {
                return index..<(index + pattern.count)
            }
            index += 1
        }
        return nil
    }
}
