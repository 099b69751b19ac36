/// The object identifiers receipts use, as DER content bytes (what follows tag and length),
/// so comparing one is comparing bytes. Package-visible for the test support target, which
/// builds receipts with them.
package enum OID {
    package static let data: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]        // 1.2.840.113549.1.7.1
    package static let signedData: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]  // 1.2.840.113549.1.7.2
    package static let contentTypeAttribute: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x03]
    package static let messageDigestAttribute: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04]

    package static let sha1: [UInt8] = [0x2B, 0x0E, 0x03, 0x02, 0x1A]
    package static let sha256: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    package static let sha384: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02]
    package static let sha512: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03]

    package static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    package static let sha1WithRSA: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x05]
    package static let sha256WithRSA: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B]
    package static let sha384WithRSA: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0C]
    package static let sha512WithRSA: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0D]
    package static let ecdsaWithSHA256: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02]
    package static let ecdsaWithSHA384: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x03]

    /// Dotted text of OID content bytes, such as "1.2.840.113549.1.7.2"; nil if malformed.
    package static func dotted<C: Collection<UInt8>>(_ content: C) -> String? {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var started = false
        for byte in content {
            if !started, byte == 0x80 { return nil }  // non-minimal arc
            guard value >> 57 == 0 else { return nil }
            value = value << 7 | UInt64(byte & 0x7F)
            started = true
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
                started = false
            }
        }
        guard !started, let first = arcs.first else { return nil }
        let head: [UInt64] = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }
}
