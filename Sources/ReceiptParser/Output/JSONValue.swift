/// A JSON value that keeps its keys in the order they were written, so output reads like the
/// documents people compare it with.
public indirect enum JSONValue: Sendable, Hashable {
    /// A string.
    case string(String)
    /// An integer (verifyReceipt has no fractional numbers).
    case number(Int64)
    /// `true` or `false`.
    case bool(Bool)
    /// An array.
    case array([JSONValue])
    /// An object whose members keep the order given.
    case object([(String, JSONValue)])

    /// Equal when they render the same (member order counts).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered() == rhs.rendered() }
    public func hash(into hasher: inout Hasher) { hasher.combine(rendered()) }

    /// The value of `key` in an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// JSON text; indented by two spaces when `pretty`.
    public func rendered(pretty: Bool = false) -> String {
        var text = ""
        write(to: &text, pretty: pretty, indent: 0)
        return text
    }

    private func write(to text: inout String, pretty: Bool, indent: Int) {
        let newline = pretty ? "\n" : ""
        func pad(_ level: Int) -> String { pretty ? String(repeating: "  ", count: level) : "" }
        switch self {
        case .string(let value): Self.writeString(value, to: &text)
        case .number(let value): text += String(value)
        case .bool(let value): text += value ? "true" : "false"
        case .array(let values):
            guard !values.isEmpty else { text += "[]"; return }
            text += "[" + newline
            for (index, value) in values.enumerated() {
                text += pad(indent + 1)
                value.write(to: &text, pretty: pretty, indent: indent + 1)
                text += (index < values.count - 1 ? "," : "") + newline
            }
            text += pad(indent) + "]"
        case .object(let members):
            guard !members.isEmpty else { text += "{}"; return }
            text += "{" + newline
            for (index, (key, value)) in members.enumerated() {
                text += pad(indent + 1)
                Self.writeString(key, to: &text)
                text += pretty ? ": " : ":"
                value.write(to: &text, pretty: pretty, indent: indent + 1)
                text += (index < members.count - 1 ? "," : "") + newline
            }
            text += pad(indent) + "}"
        }
    }

    /// `value` as a JSON string: quotes, backslashes and every invisible character escaped.
    static func writeString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where DisplayText.isInvisible(scalar): appendEscape(scalar, to: &text)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// `\uXXXX` (a surrogate pair past U+FFFF): the same value, readable by every JSON reader,
    /// and inert when the JSON itself is shown in a terminal or a log.
    private static func appendEscape(_ scalar: Unicode.Scalar, to text: inout String) {
        func unit(_ value: UInt32) {
            let hex = String(value, radix: 16)
            text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        if scalar.value < 0x10000 {
            unit(scalar.value)
        } else {
            let offset = scalar.value - 0x10000
            unit(0xD800 + (offset >> 10))
            unit(0xDC00 + (offset & 0x3FF))
        }
    }

    /// JSON text from another writer (`JSONEncoder`) with the invisible characters it leaves
    /// raw (DEL, C1 controls, bidirectional and other format characters, line separators)
    /// escaped as this type escapes them. In valid JSON they can only stand inside strings, so
    /// the value read back is unchanged.
    public static func escapingInvisibleCharacters(in json: String) -> String {
        var json = json
        let plain = json.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x7F } }
        if plain { return json }
        var text = ""
        text.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            if scalar.value >= 0x7F, DisplayText.isInvisible(scalar) {
                appendEscape(scalar, to: &text)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
