/// The little DER writing the library needs: ``ReceiptAttributeSet`` encodes attributes made
/// in code (or read from JSON) so that they read back like decoded ones.
enum DERWriter {
    /// Appends one element: identifier, definite length in its shortest form, content.
    static func append(_ identifier: UInt8, _ content: [UInt8], to output: inout [UInt8]) {
        output.append(identifier)
        if content.count < 0x80 {
            output.append(UInt8(content.count))
        } else {
            var length = [UInt8]()
            var remaining = content.count
            while remaining > 0 {
                length.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            output.append(0x80 | UInt8(length.count))
            output.append(contentsOf: length)
        }
        output.append(contentsOf: content)
    }

    /// The content of a DER INTEGER: two's complement, big-endian, in the fewest bytes.
    static func integer(_ value: Int) -> [UInt8] {
        var bytes = withUnsafeBytes(of: Int64(value).bigEndian, Array.init)
        // Drop a leading byte while the next one carries the same sign.
        while bytes.count > 1,
              (bytes[0] == 0x00 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xFF && bytes[1] & 0x80 != 0) {
            bytes.removeFirst()
        }
        return bytes
    }
}
