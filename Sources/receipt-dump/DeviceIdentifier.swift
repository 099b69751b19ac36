#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ReceiptParser
import ReceiptReports

/// Parses a device identifier: a UUID (identifierForVendor) or hex (a MAC address on macOS).
enum DeviceIdentifier {
    static func parse(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8).filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: ":") }
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
            index += 2
        }
        return bytes
    }
}
