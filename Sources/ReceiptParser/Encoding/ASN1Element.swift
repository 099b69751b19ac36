/// One ASN.1 element found in a byte buffer: where its parts are, not what they mean.
struct ASN1Element: Sendable {
    /// The identifier octet (class, constructed bit and tag number below 31).
    var identifier: UInt8
    /// Offset of the identifier octet.
    var start: Int
    /// Offset of the first content byte.
    var contentStart: Int
    /// Offset just past the content (before the end-of-contents octets of an indefinite length).
    var contentEnd: Int
    /// Offset just past the whole element.
    var end: Int

    var isConstructed: Bool { identifier & 0x20 != 0 }
    var contentRange: Range<Int> { contentStart..<contentEnd }
    var range: Range<Int> { start..<end }
}
