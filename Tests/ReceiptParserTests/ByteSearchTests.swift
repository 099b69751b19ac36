import Testing
@testable import ReceiptParser

/// `ByteSearch.contains` (memchr, then a compare) answers as a search at every offset does.
@Suite struct ByteSearchTests {
    @Test func findsANeedleWhereverItIs() {
        let needle = Array("\"receipt-data\"".utf8)
        #expect(ByteSearch.contains(needle, in: needle))
        #expect(ByteSearch.contains(needle, in: Array("{\"receipt-data\":1}".utf8)))
        #expect(ByteSearch.contains(needle, in: Array("x\"receipt-data\"".utf8)))
        #expect(!ByteSearch.contains(needle, in: Array("\"receipt-data".utf8)))
        #expect(!ByteSearch.contains(needle, in: Array("\"receipt-dat\"\"receipt-data_\"".utf8)))
        #expect(ByteSearch.contains(Array("aab".utf8), in: Array("aaab".utf8)))
        #expect(!ByteSearch.contains([], in: [1, 2]))
        #expect(!ByteSearch.contains([1], in: []))
    }

    @Test func answersAsASearchAtEveryOffsetDoes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            // A two-letter alphabet, so that partial matches are everywhere.
            let bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...1, using: &generator) }
            let needle = (0..<Int.random(in: 1..<6, using: &generator)).map { _ in UInt8.random(in: 0...1, using: &generator) }
            let expected = needle.count <= bytes.count
                && (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
            #expect(ByteSearch.contains(needle, in: bytes) == expected, "\(needle) in \(bytes)")
        }
    }
}
