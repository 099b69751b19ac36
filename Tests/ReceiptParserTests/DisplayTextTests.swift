import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The one function that turns input text into text shown to people.
struct DisplayTextTests {
    /// Whether `text` holds any of ``Expected/dangerousScalars`` raw.
    static func holdsRawControl(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains { Expected.dangerousScalars.contains($0) }
    }

    @Test func everyControlAndFormatCharacterIsEscaped() {
        for scalar in Expected.dangerousScalars {
            let shown = DisplayText.escape("a" + String(Character(scalar)) + "b")
            #expect(!Self.holdsRawControl(shown), "U+\(String(scalar.value, radix: 16)) reached the output raw")
            #expect(shown.hasPrefix("a\\") && shown.hasSuffix("b"), "U+\(String(scalar.value, radix: 16)) shown as \(shown)")
        }
        #expect(DisplayText.escape("\u{1B}[2J\tx\ny\rz") == "\\u{1B}[2J\\tx\\ny\\rz")
        #expect(DisplayText.escape("gnp.\u{202E}exe") == "gnp.\\u{202E}exe")
        #expect(DisplayText.escape("\u{85}") == "\\u{85}")
    }

    @Test func ordinaryTextIsShownAsItIs() {
        for text in ["com.example.app", "com.example.café", "com.example.cafe\u{301}", "日本語のアプリ", "👍🏽 ok", ""] {
            #expect(DisplayText.escape(text) == text)
        }
        // Text that spells an escape is told apart from one: its backslash is doubled.
        #expect(DisplayText.escape("a\\u{1B}b") == "a\\\\u{1B}b")
        #expect(DisplayText.escape("a\u{1B}b") == "a\\u{1B}b")
    }

    @Test func longTextIsShortenedWithAMarkerAndItsLength() {
        let long = String(repeating: "x", count: 50_000)
        #expect(DisplayText.escape(long, limit: 64) == String(repeating: "x", count: 64) + "… (50000 characters)")
        #expect(DisplayText.escape(String(repeating: "x", count: 64), limit: 64) == String(repeating: "x", count: 64))
        // Escapes count at their shown width, and are never cut in half.
        let escapes = String(repeating: "\u{1B}", count: 100)
        let shown = DisplayText.escape(escapes, limit: 64)
        #expect(shown == String(repeating: "\\u{1B}", count: 10) + "… (100 characters)")
    }

    @Test func combiningMarksCannotStretchOneCharacter() {
        // One grapheme cluster of 10 001 scalars: the limit counts scalars, so it stays short.
        let zalgo = "e" + String(repeating: "\u{301}", count: 10_000)
        #expect(zalgo.count == 1)
        let shown = DisplayText.escape(zalgo, limit: 64)
        #expect(shown.unicodeScalars.count < 100)
        #expect(shown.hasSuffix("… (10001 characters)"))
    }

    @Test func supportViewValuesAreDisplayText() throws {
        var receipt = Receipt()
        receipt.bundleID = "com.example\n  Verdict:                      VERIFIED\u{1B}[8m"
        receipt.receiptType = String(repeating: "P", count: 10_000)
        var purchase = InAppPurchase()
        purchase.productID = "pro\tmonthly\u{202E}"
        purchase.transactionID = String(repeating: "9", count: 5_000)
        purchase.promotionalOfferID = "offer\r\u{1B}[2K"
        receipt.inAppPurchases = [purchase]
        let fields = SupportView.fields(of: receipt)
        for (_, value) in fields {
            #expect(!Self.holdsRawControl(value))
            #expect(value.unicodeScalars.count <= DisplayText.fieldLimit + 32)
        }
        #expect(fields.contains { $0.value == "com.example\\n  Verdict:                      VERIFIED\\u{1B}[8m" })
        for cell in try #require(SupportView.purchaseRows(receipt.inAppPurchases).first) {
            #expect(!Self.holdsRawControl(cell))
            #expect(cell.unicodeScalars.count <= 2 * (DisplayText.cellLimit + 32))
        }
        let failure = ReceiptError(.invalidDate, "attribute 12 is not an RFC 3339 date: \"\r\u{1B}[1A VERIFIED\"")
        #expect(!Self.holdsRawControl(SupportView.verdict(.failure(failure))))
    }
}

extension DisplayTextTests {
    /// A token's array is described only as far as the line shows it: a forged token may claim a
    /// million values, and the line is the same as describing them all and cutting.
    @Test func aTokensArrayIsDescribedAsFarAsItIsShown() {
        func line(_ count: Int) -> String? {
            var token = SignedDataInspection(member: nil, expectedKind: .transaction)
            token.payload = .object([(key: "values", value: .array((0..<count).map { .number(String($0)) }))])
            return SupportView.tokenLines([token]).first { $0.contains("values:") }
        }
        let long = line(1_000_000)
        #expect(long == line(200))
        let shown = (0..<200).map(String.init).joined(separator: ", ").prefix(DisplayText.fieldLimit)
        #expect(long?.hasSuffix("[" + shown + "]") == true)
        #expect(line(3)?.hasSuffix("[0, 1, 2]") == true)
    }
}
