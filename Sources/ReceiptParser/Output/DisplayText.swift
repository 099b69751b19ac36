/// The one way text taken from input (a receipt's fields, certificate names, error reasons that
/// quote input, file names) becomes text shown to people: in a terminal, a log line, a web page.
///
/// A forged receipt chooses its strings. Shown raw, escape sequences repaint a terminal (a fake
/// `VERIFIED` over the real verdict), a newline adds a fake line to a one-line-per-receipt
/// listing or a log, and bidirectional controls reorder what a reader sees. So every control
/// and invisible formatting character is written as a visible escape instead: `\t`, `\n`,
/// `\r`, and `\u{1B}` for the others (C0, DEL and C1 controls; Unicode format characters,
/// which include the bidirectional controls U+202A–U+202E and U+2066–U+2069 and the
/// zero-width ones; line and paragraph separators), and a backslash is doubled so that text
/// spelling `\u{1B}` cannot pass for an escape. A limit shortens long text with a visible
/// marker and the full length, so a 50 000-character product identifier cannot widen a table
/// or a log line; the full value stays in the JSON outputs, which escape by JSON's rules.
///
/// ```swift
/// print("Bundle ID: " + DisplayText.escape(receipt.bundleID ?? "-", limit: DisplayText.fieldLimit))
/// ```
public enum DisplayText {
    /// The longest field value shown (bundle identifier, versions, reasons), in characters.
    public static let fieldLimit = 256
    /// The longest error reason shown; reasons may quote input (a malformed date, a name).
    public static let reasonLimit = 1024
    /// The longest table cell shown (product and transaction identifiers), in characters.
    public static let cellLimit = 64

    /// `text` with every control and invisible formatting character escaped; when the result
    /// would be longer than `limit` Unicode scalars, its first `limit` followed by
    /// `… (N characters)`, N being the length of `text` in Unicode scalars.
    ///
    /// Lengths count Unicode scalars, not grapheme clusters: a single "character" can carry any
    /// number of combining marks, so only scalars bound the size of the output.
    public static func escape(_ text: some StringProtocol, limit: Int = .max) -> String {
        if let plain = text.utf8.withContiguousStorageIfAvailable({ isPlain($0, limit: limit) }), plain {
            return String(text)
        }
        var output = ""
        var written = 0
        for scalar in text.unicodeScalars {
            let piece = escaped(scalar)
            let length = piece?.unicodeScalars.count ?? 1
            guard written + length <= limit else {
                output += "… (\(text.unicodeScalars.count) characters)"
                return output
            }
            if let piece { output += piece } else { output.unicodeScalars.append(scalar) }
            written += length
        }
        return output
    }

    /// Whether `text` needs nothing done: printable ASCII only, within the limit. Most receipt
    /// text is, and this check is a byte loop.
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> Bool {
        guard bytes.count <= limit else { return false }
        for byte in bytes where byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\\") { return false }
        return true
    }

    /// The escape for `scalar`, or nil when it is shown as itself. A backslash is doubled, so
    /// that text spelling `\u{1B}` cannot pass for an escaped control.
    private static func escaped(_ scalar: Unicode.Scalar) -> String? {
        if scalar == "\\" { return "\\\\" }
        guard isInvisible(scalar) else { return nil }
        switch scalar {
        case "\t": return "\\t"
        case "\n": return "\\n"
        case "\r": return "\\r"
        default: return hex(scalar)
        }
    }

    /// Whether `scalar` is a control (C0, DEL, C1), a format character (bidirectional
    /// controls, zero-width characters, tags) or a line or paragraph separator: the scalars
    /// that act on a display instead of appearing on it. JSON writers escape them too.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20..<0x7F: return false
        case 0x00..<0x20, 0x7F..<0xA0: return true
        default:
            switch scalar.properties.generalCategory {
            case .format, .lineSeparator, .paragraphSeparator, .control: return true
            default: return false
            }
        }
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
}
