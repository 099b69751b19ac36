#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// ANSI colour, only when writing to a terminal.
public struct Style: Sendable {
    package let enabled: Bool
    /// Colour on or off.
    public init(enabled: Bool) { self.enabled = enabled }
    package func green(_ text: String) -> String { paint(text, "32") }
    package func red(_ text: String) -> String { paint(text, "31") }
    package func yellow(_ text: String) -> String { paint(text, "33") }
    package func bold(_ text: String) -> String { paint(text, "1") }
    private func paint(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
