import ReceiptParser

/// Parses a device identifier: a UUID (identifierForVendor) or hex (a MAC address on macOS).
enum DeviceIdentifier {
    static func parse(_ text: String) -> [UInt8]? {
        let digits = text.filter { $0 != "-" && $0 != ":" }
        guard !digits.isEmpty, let bytes = ByteString(hex: digits) else { return nil }
        return Array(bytes)
    }
}
