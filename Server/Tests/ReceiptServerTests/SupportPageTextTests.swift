import Foundation
import ServerTestSupport
import Testing
@testable import ReceiptServer

/// The support page reads its form fields and escapes what it shows byte by byte
/// (`SupportPage.formValue`, `SupportPage.escape`): the same answers as the readings by
/// Foundation and by Unicode scalar the page had, on any input.
@Suite struct SupportPageTextTests {
    @Test func fieldsAreDecodedAndFoundByName() throws {
        let cases: [(body: String, value: String?)] = [
            ("receipt=a%2Bb+c", "a+b c"),
            ("x=1&receipt=", ""),
            ("x=1", nil),
            ("receipt", nil),
            ("rec%65ipt=v", "v"),
            ("&&receipt=v&", "v"),
            ("receipt=a=b", "a=b"),
            ("receipt=%C3%A9%e2%82%ac", "é€"),
            ("receipt=%zz", ""),
            ("receipt=%4", ""),
            ("receipt=%FF", ""),
            ("receipt=%A9", ""),
            ("receipt=%C3", ""),
            ("receipt=%00", "\u{0}"),
            ("rec%zzeipt=1&receipt=2", "2"),
        ]
        for (body, value) in cases {
            #expect(try SupportPage.formValue(named: "receipt", in: Array(body.utf8)) == value, "\(body)")
        }
        #expect(throws: Refusal.self) { try SupportPage.formValue(named: "receipt", in: Array("receipt=1&rec%65ipt=2".utf8)) }
        // Invalid UTF-8 in the body reads as U+FFFD.
        #expect(try SupportPage.formValue(named: "receipt", in: Array("receipt=a".utf8) + [0xFF]) == "a\u{FFFD}")
    }

    /// Random bodies over the bytes that matter (separators, escapes good and bad, multi-byte
    /// UTF-8 raw and escaped, bytes that are not UTF-8), each answered as the Foundation reading
    /// the page used before. Escapes that decode to bytes that are not UTF-8 are left to the cases
    /// above: Foundation answers some of those with U+FFFD and some with nil.
    @Test func answersAsFoundationsPercentDecodingDoes() {
        // Loose hex digits that can only make escapes below 0x80 (after a loose "%", "2", "0" or
        // "7" first); escapes of letters whole.
        let pieces: [[UInt8]] = ["&", "=", "+", "%", "2", "0", "7", "z", "%7a", "%4A", "%C3%A9", "%E2%82%AC", "%2B", "%26", "%3D",
                                 "receipt", "rec", "eipt", "%65", "é", "€", " ", "x"].map { Array($0.utf8) } + [[0xFF], [0xC3], [0xA9]]
        var random = SplitMix64(seed: 0x5EED_F0A4)
        for _ in 0..<5_000 {
            var body: [UInt8] = []
            for _ in 0..<Int(random.next() % 12) { body += pieces[Int(random.next() % UInt64(pieces.count))] }
            let expected = Result { try Self.foundationFormValue(named: "receipt", in: body) }
            let actual = Result { try SupportPage.formValue(named: "receipt", in: body) }
            switch (expected, actual) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(body)")
            case (.failure, .failure): break
            default: Issue.record("\(body): Foundation \(expected), formValue \(actual)")
            }
        }
    }

    /// The reading the page had, through Foundation's string decoding: the oracle.
    private static func foundationFormValue(named name: String, in body: [UInt8]) throws -> String? {
        func decoded(_ part: Substring) -> String? {
            String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        var found: String?
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let key = decoded(parts[0]), key.utf8.elementsEqual(name.utf8) else { continue }
            guard found == nil else { throw Refusal.invalid(member: name, "twice") }
            found = decoded(parts[1]) ?? ""
        }
        return found
    }

    @Test func everyMarkupCharacterIsEscapedWhateverFollowsIt() {
        #expect(SupportPage.escape("a<b>&\"'é<\u{301}€") == "a&lt;b&gt;&amp;&quot;&#39;é&lt;\u{301}€")
        #expect(SupportPage.escape("") == "")
        var random = SplitMix64(seed: 0xE5CA_9E00)
        let pieces = ["<", ">", "&", "\"", "'", "a", "é", "\u{301}", "€", "😀", "\u{0}", " "]
        for _ in 0..<2_000 {
            let text = (0..<Int(random.next() % 16)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            #expect(SupportPage.escape(text) == Self.scalarEscape(text), "\(Array(text.unicodeScalars))")
        }
    }

    /// The escaping the page had, scalar by scalar: the oracle.
    private static func scalarEscape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
