// String helpers that Foundation's NSString used to provide (receipt-dump imports
// FoundationEssentials only).

extension Unicode.Scalar {
    /// In Foundation's `CharacterSet.whitespaces`: tab and the Unicode space separators.
    package var isBlank: Bool { self == "\t" || properties.generalCategory == .spaceSeparator }

    /// In Foundation's `CharacterSet.newlines`.
    package var isLineBreak: Bool {
        switch value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }
}

extension StringProtocol {
    /// Without the leading and trailing scalars that match `isTrimmed`.
    package func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = Substring(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(Substring(scalars[first...last]))
    }

    /// Followed by spaces up to `width` characters; never cut.
    package func padded(to width: Int) -> String {
        String(self) + String(repeating: " ", count: Swift.max(0, width - count))
    }
}
