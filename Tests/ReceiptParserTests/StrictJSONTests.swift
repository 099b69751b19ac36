import Foundation
import Testing
import ReceiptParser
import ReceiptTestSupport

/// The strict JSON reader: RFC 8259 and nothing more, no duplicate keys, bounded depth.
struct StrictJSONTests {
    func parse(_ text: String) throws -> StrictJSON.Value { try StrictJSON.parse(Array(text.utf8)) }
    func code(_ text: String) -> ReceiptError.Code? { errorCode { try parse(text) } }
    func code(_ bytes: [UInt8]) -> ReceiptError.Code? { errorCode { try StrictJSON.parse(bytes) } }

    @Test func readsEveryKindOfValue() throws {
        let value = try parse(#" { "s": "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00", "n": [0, -1, 12.5, 1e3, -0.5E-2, 10E+2], "t": true, "f": false, "z": null, "o": {}, "a": [] } "#)
        #expect(value == .object([
            ("s", .string("a\"b\\c/d\u{08}\u{0C}\n\r\té😀")),
            ("n", .array([.number("0"), .number("-1"), .number("12.5"), .number("1e3"), .number("-0.5E-2"), .number("10E+2")])),
            ("t", .bool(true)), ("f", .bool(false)), ("z", .null), ("o", .object([])), ("a", .array([])),
        ]))
        #expect(value["n"] == .array([.number("0"), .number("-1"), .number("12.5"), .number("1e3"), .number("-0.5E-2"), .number("10E+2")]))
        #expect(value["missing"] == nil)
        #expect(try parse("\"é\"") == .string("é"))  // raw UTF-8
        #expect(try parse("\"\\u0000\"") == .string("\u{0}"))
        #expect(try parse("7") == .number("7"))
        #expect(try parse(" \t\r\n[ 1 , 2 ]\n ") == .array([.number("1"), .number("2")]))
    }

    /// Strings are scanned eight bytes at a time: a quote, a backslash, a control character or
    /// a non-ASCII byte must be found at every position of the word, in keys and values.
    @Test func everySpecialByteIsSeenAtEveryPosition() throws {
        let plain = "abcdefghijklmnopqrstuvwxyz0123456789+/="
        for position in 0...plain.count {
            let (head, tail) = (String(plain.prefix(position)), String(plain.dropFirst(position)))
            #expect(try parse("{\"k\":\"\(head)\\\"\(tail)\"}")["k"] == .string(head + "\"" + tail), "escaped quote at \(position)")
            #expect(try parse("{\"k\":\"\(head)\\n\(tail)\"}")["k"] == .string(head + "\n" + tail), "escape at \(position)")
            #expect(try parse("{\"k\":\"\(head)é\u{7F}\(tail)\"}")["k"] == .string(head + "é\u{7F}" + tail), "non-ASCII at \(position)")
            #expect(try parse("{\"\(head)\":\"\(tail)\"}")["\(head)"] == .string(tail), "the quote ending a string at \(position)")
            for control in ["\u{0}", "\u{1F}", "\n", "\t"] {
                #expect(throws: ReceiptError.self, "raw control at \(position)") { try parse("{\"k\":\"\(head)\(control)\(tail)\"}") }
            }
        }
    }

    @Test func duplicateKeysAreRefusedAtEveryLevel() {
        #expect(code(#"{"a": 1, "a": 2}"#) == .duplicateKey)
        #expect(code(#"{"a": 1, "a": 1}"#) == .duplicateKey)  // even with the same value
        #expect(code(#"{"x": {"b": 1, "c": 2, "b": 3}}"#) == .duplicateKey)
        #expect(code(#"[{"ok": 1}, {"k": [{"d": 1, "d": 2}]}]"#) == .duplicateKey)
        // The same key after unescaping, however it is spelt.
        #expect(code(#"{"a": 1, "\u0061": 2}"#) == .duplicateKey)
        #expect(code(#"{"receipt-data": 1, "receipt\u002Ddata": 2}"#) == .duplicateKey)
        #expect(code(#"{"a/b": 1, "a\/b": 2}"#) == .duplicateKey)
        #expect(code(#"{"😀": 1, "\ud83d\ude00": 2}"#) == .duplicateKey)
        // Keys that differ in bytes are different, even when Unicode calls them equivalent
        // (U+212A KELVIN SIGN and "K"; "é" precomposed and decomposed).
        #expect(code(#"{"K": 1, "\u212a": 2}"#) == nil)
        #expect(code(#"{"\u00e9": 1, "e\u0301": 2}"#) == nil)
        // Keys in different objects may repeat.
        #expect(code(#"{"a": {"a": 1}, "b": {"a": 2}}"#) == nil)
        // Many keys (hashed rather than searched): the duplicate is still found.
        let many = (0..<1000).map { "\"k\($0)\": \($0)" }.joined(separator: ",")
        #expect(code("{\(many)}") == nil)
        #expect(code("{\(many), \"k500\": 0}") == .duplicateKey)
    }

    @Test func aDuplicateIsFoundAtEveryPositionInObjectsOfEverySize() {
        // Keys of one length with the same first two and last two bytes ("kA0000kk", ...): only
        // their middle differs. Sizes around the linear search's limit (64) and past it.
        for size in [1, 2, 16, 17, 33, 63, 64, 65, 66, 100] {
            let keys = (0..<size).map { "kA\(String(1000 + $0))kk" }
            let members = keys.enumerated().map { "\"\($0.element)\": \($0.offset)" }
            #expect(code("{\(members.joined(separator: ","))}") == nil, "\(size) keys")
            for repeated in Set([0, size / 2, size - 1]) {
                let body = (members + ["\"\(keys[repeated])\": 0"]).joined(separator: ",")
                #expect(code("{\(body)}") == .duplicateKey, "\(size) keys, key \(repeated) again")
            }
        }
        #expect(code(#"{"": 1, "a": 2, "": 3}"#) == .duplicateKey)
        #expect(code(#"{"": 1, "a": 2, "ab": 3, "ba": 4}"#) == nil)
    }

    @Test func theDuplicateKeyIsNamedAndLongKeysAreCut() throws {
        do {
            _ = try parse(#"{"receipt-data": "A", "receipt-data": "B"}"#)
            Issue.record("a duplicate key was accepted")
        } catch let error as ReceiptError {
            #expect(error.code == .duplicateKey)
            #expect(error.reason.contains("\"receipt-data\""))
        }
        let long = String(repeating: "é", count: 100)  // 200 bytes: cut inside a character would be invalid
        do {
            _ = try parse("{\"\(long)\": 1, \"\(long)\": 2}")
            Issue.record("a duplicate key was accepted")
        } catch let error as ReceiptError {
            #expect(error.code == .duplicateKey)
            #expect(error.reason.contains("\"" + String(repeating: "é", count: 32) + "…\" (200 bytes)"))
            #expect(error.reason.count < 150)
        }
    }

    @Test func depthIsCappedAtTheLimit() {
        let limit = DecodingLimits.maximumJSONDepth
        #expect(code(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)) == nil)
        #expect(code(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)) == .invalidJSON)
        let objects = { (depth: Int) in String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth) }
        #expect(code(objects(limit)) == nil)
        #expect(code(objects(limit + 1)) == .invalidJSON)
        // Far past the limit: refused without recursing that deep.
        #expect(code(String(repeating: "[", count: 1_000_000)) == .invalidJSON)
        #expect(code(String(repeating: "{\"a\":", count: 200_000)) == .invalidJSON)
    }

    @Test func invalidUTF8IsRefused() {
        func string(_ bytes: [UInt8]) -> [UInt8] { [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")] }
        #expect(code(string([0xC3, 0xA9])) == nil)  // é
        #expect(code(string([0xF0, 0x9F, 0x98, 0x80])) == nil)  // 😀
        for bad: [UInt8] in [[0xFF], [0x80], [0xC3], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
                             [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0xC3, 0x41], [0xF8, 0x88, 0x80, 0x80, 0x80]] {
            #expect(code(string(bad)) == .invalidJSON, "\(bad)")
        }
        // Outside strings too, and in keys.
        #expect(code([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .invalidJSON)  // a byte order mark is not whitespace
        #expect(code([UInt8]("{\"".utf8) + [0xFF] + Array("\": 1}".utf8)) == .invalidJSON)
    }

    @Test func loneSurrogatesAreRefused() {
        #expect(code(#""\ud83d\ude00""#) == nil)
        #expect(code(#""\ud83d""#) == .invalidJSON)
        #expect(code(#""\ude00""#) == .invalidJSON)
        #expect(code(#""\ud83dx""#) == .invalidJSON)
        #expect(code(#""\ud83d\u0041""#) == .invalidJSON)
        #expect(code(#""\ud83d\ud83d""#) == .invalidJSON)
        #expect(code(#""\ude00\ud83d""#) == .invalidJSON)
    }

    @Test func malformedTextIsInvalidJSON() {
        for text in ["", "   ", "{", "}", "[", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{a: 1}", "{'a': 1}",
                     "{\"a\":1,}", "{,}", "[1 2]", "\"unterminated", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"",
                     "\"tab\there\"", "\"new\nline\"", "tru", "nul", "True", "NaN", "Infinity", "-", "01", "-01", "1.",
                     ".5", "1e", "1e+", "+1", "0x10", "{} {}", "[] x", "{}]", "1 2", "\u{0}", "/* comment */ {}"] {
            #expect(code(text) == .invalidJSON, "\(text.debugDescription)")
        }
        #expect(code([0x7B, 0x7D, 0x00]) == .invalidJSON)  // a NUL after the value
    }

    @Test func longStringsAreReadQuicklyAndWhole() throws {
        let payload = String(repeating: "ABCD", count: 1 << 20)  // 4 MiB, the size of a large body
        let started = ContinuousClock.now
        let value = try parse("{\"receipt-data\": \"\(payload)\"}")
        let elapsed = ContinuousClock.now - started
        guard case .string(let read)? = value["receipt-data"] else { Issue.record("not a string"); return }
        #expect(read == payload)
        #expect(elapsed < .seconds(1), "4 MiB took \(elapsed)")
        // A long string full of escapes and non-ASCII characters.
        let mixed = String(repeating: "\\/é\\u00e9\\n", count: 100_000)
        guard case .string(let unescaped) = try parse("\"\(mixed)\"") else { Issue.record("not a string"); return }
        #expect(unescaped == String(repeating: "/éé\n", count: 100_000))
    }

    @Test func renderedTextReadsBackEqual() throws {
        for text in [#"{"a":[1,-2.5e3,true,false,null,{"b":"\u0000\"\\\/é😀"}],"c":{}}"#, "[]", "\"\"", "0", "null"] {
            let value = try parse(text)
            #expect(try parse(value.rendered()) == value)
        }
        #expect(try parse(#"{"a":"\/"}"#).rendered() == #"{"a":"/"}"#)
    }

    @Test func oversizedInputIsRefusedBeforeReading() {
        let text = [UInt8](repeating: UInt8(ascii: " "), count: DecodingLimits.maximumInputSize * 3 / 2 + 1)
        #expect(code(text) == .tooLarge)
    }
}
