import Testing
import ReceiptParser

/// What the suites of both test targets expect of the same rules and fixtures: the library's
/// (ReceiptParserTests) and receipt-dump's (ReceiptDumpTests).
package enum Expected {
    /// Scalars that must never reach a person raw: C0 (tab and newline included), DEL, C1,
    /// bidirectional controls, zero-width and other format characters, line separators.
    package static let dangerousScalars: [Unicode.Scalar] = (Array(0x00...0x1F) + [0x7F] + Array(0x80...0x9F)
        + [0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
           0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF, 0xE0001])
        .map { Unicode.Scalar(UInt32($0))! }

    /// The verifyReceipt answer for a genuine receipt of `receiptType` when the environment
    /// `expected` is expected: status, and the environment field when the status is 0.
    package static func environmentAnswer(_ receiptType: String?, expecting expected: Environment?) -> (Int64, String?) {
        let placed: Environment = switch receiptType {
        case "Production"?, "ProductionVPP"?: .production
        case "ProductionSandbox"?, "ProductionVPPSandbox"?: .sandbox
        case "Xcode"?: .xcode
        default: .unknown
        }
        switch (expected, placed) {
        case (nil, .production): return (0, "Production")
        case (nil, .sandbox): return (0, "Sandbox")
        case (nil, .xcode): return (0, "Xcode")
        case (nil, .unknown): return (0, "Unknown")
        case (.production?, .production): return (0, "Production")
        case (.production?, .sandbox), (.production?, .xcode): return (21007, nil)
        case (.sandbox?, .sandbox): return (0, "Sandbox")
        case (.sandbox?, .xcode): return (0, "Xcode")
        case (.sandbox?, .production): return (21008, nil)
        case (_, .unknown): return (21003, nil)
        default: Issue.record("no expectation for \(String(describing: expected))"); return (-1, nil)
        }
    }

    /// The fixtures whose receipt type TestReceipts/cases.json records and that verify under
    /// App Store rules with the test root (hostile/receipt-type-*, the sample): file and the type
    /// they carry.
    package static func receiptTypeFixtures() throws -> [(file: String, type: String?)] {
        try FixtureManifest.load().compactMap { item in
            guard item.options == .init(root: "pki/test-root.der"), item.error == nil,
                  let value = item.receipt?["receiptType"] else { return nil }
            guard case .text(let type) = value else { return (item.file, nil) }
            return (item.file, type)
        }
    }

    /// The generated hostile fixtures (TestReceipts/hostile) that receipt-dump's output tests show
    /// in every format; genuinely signed by the test PKI, so the verified paths show them too.
    package static let hostileOutputFixtures = ["terminal-escapes.receipt", "bidi-controls.receipt", "newline-tab-fields.receipt",
                                        "bad-date-escapes.receipt", "wide-cells.receipt", "deep-nesting.receipt"]
}
