#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The --format asn1 output: the raw attribute tree with type numbers (and the names of agreed
/// types), versions, hex and values.
///
/// A forged receipt may nest attribute SETs thousands of levels deep: indentation stops growing
/// at `indentedDepth` (deeper lines say their depth as a number instead), and SETs deeper than
/// `expandedDepth` are shown as hex, not expanded, so output and time stay proportional to the
/// receipt. Each expanded level holds a copy of its bytes while deeper ones are walked, so
/// memory is at most `expandedDepth` times the payload. Real receipts nest 2 levels.
package enum ASN1Report {
    package static let indentedDepth = 8
    package static let expandedDepth = 16

    package static func render(_ result: DumpResult) -> String {
        var lines = ["File: " + DisplayText.escape(result.file)]
        guard let receipt = result.receipt else {
            let problem = result.readError.map { "\($0.code)): " + DisplayText.escape($0.reason, limit: DisplayText.reasonLimit) } ?? "?)"
            lines.append("  \(Verdict.unreadable.rawValue) (" + problem)
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("SET OF ReceiptAttribute (\(receipt.attributes.count))")
        // Depth-first without recursion: a stack of the sets being walked, one per level.
        var stack: [(attributes: ReceiptAttributeSet, position: ReceiptAttributeSet.Index)] = [(receipt.attributes, receipt.attributes.startIndex)]
        while let top = stack.last {
            guard top.position != top.attributes.endIndex else {
                stack.removeLast()
                continue
            }
            let attribute = top.attributes[top.position]
            stack[stack.count - 1].position = top.attributes.index(after: top.position)
            let depth = stack.count
            let indent = depth <= indentedDepth
                ? String(repeating: "    ", count: depth - 1) + "  "
                : String(repeating: "    ", count: indentedDepth - 1) + "  [depth \(depth)] "
            let name = attribute.attributeType.name.map { " (\($0))" } ?? ""
            var line = "\(indent)type \(attribute.type)\(name) version \(attribute.version) "
            let value = depth < expandedDepth ? attribute.decodedValue : .bytes
            switch value {
            case .integer(let number): line += "INTEGER \(number)"
            case .utf8String(let text): line += "UTF8String \"" + DisplayText.escape(text, limit: DisplayText.fieldLimit) + "\""
            case .ia5String(let text): line += "IA5String \"" + DisplayText.escape(text, limit: DisplayText.fieldLimit) + "\""
            case .attributes(let inner): line += "SET OF ReceiptAttribute (\(inner.count))"
            case .bytes: line += "OCTETS"
            }
            if case .attributes(let inner) = value {
                lines.append(line)
                stack.append((inner, inner.startIndex))
            } else {
                lines.append(line + " [\(attribute.value.hex)]")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
