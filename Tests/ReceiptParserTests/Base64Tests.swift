import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The strict base64 rules (standard alphabet, whitespace skipped anywhere, at most two `=` and
/// only at the end), at every position of the input: the decoder reads whole groups of four
/// alphabet characters on a fast path and everything else byte by byte, and the two must agree.
struct Base64Tests {
    func decode(_ text: String) -> [UInt8]? { Base64.decode(Array(text.utf8)) }

    @Test func decodesWhatFoundationEncodesAtEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Data(bytes).base64EncodedString()
            #expect(decode(text) == bytes, "length \(length)")
            // Unpadded, as some clients send it.
            #expect(decode(text.replacingOccurrences(of: "=", with: "")) == bytes, "length \(length), no padding")
            // Wrapped, with whitespace at every position before the padding.
            let body = text.prefix { $0 != "=" }
            for offset in stride(from: 0, through: body.count, by: 1) {
                for space in [" ", "\n", "\r\n", "\t"] {
                    var wrapped = text
                    wrapped.insert(contentsOf: space, at: wrapped.index(wrapped.startIndex, offsetBy: offset))
                    #expect(decode(wrapped) == bytes, "length \(length), \(space.debugDescription) at \(offset)")
                }
            }
        }
    }

    @Test func refusesAForeignCharacterAnywhere() {
        let text = Data((0..<45).map { UInt8($0) }).base64EncodedString()  // 60 characters, no padding
        for offset in 0...text.count {
            for foreign in ["%", "-", "_", "*", "\u{0}", "é", "."] {
                var bad = text
                bad.insert(contentsOf: foreign, at: bad.index(bad.startIndex, offsetBy: offset))
                #expect(decode(bad) == nil, "\(foreign.debugDescription) at \(offset)")
            }
        }
    }

    @Test func refusesPaddingAnywhereButTheEnd() {
        let text = Data((0..<45).map { UInt8($0) }).base64EncodedString()
        for offset in 0..<text.count {
            var bad = text
            bad.insert("=", at: bad.index(bad.startIndex, offsetBy: offset))
            #expect(decode(bad) == nil, "\"=\" at \(offset)")
        }
        #expect(decode("AAAA=AAAA") == nil)
        #expect(decode("AA==AAAA") == nil)
        #expect(decode("AA===") == nil)
        #expect(decode("AAA==") == nil)
        #expect(decode("A") == nil)
        #expect(decode("A=") == nil)
        #expect(decode("AAAAA") == nil)
        #expect(decode("====") == nil)
        #expect(decode("AA=") == nil)
        #expect(decode("AA==") == [0])
        #expect(decode("AA = = ") == [0])
        #expect(decode("AAA=") == [0, 0])
        #expect(decode("") == [])
        #expect(decode(" \n ") == [])
    }
}
