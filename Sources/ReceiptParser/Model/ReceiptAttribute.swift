/// One attribute of a receipt or of an in-app purchase, exactly as signed.
///
/// Every attribute is kept this way, known or not, so nothing in a receipt is lost: types that
/// Apple adds later, and the undocumented ones (such as 1707 or 1722), stay available.
public struct ReceiptAttribute: Sendable, Hashable, Codable {
    /// The attribute type number (for example 2 for the bundle identifier, 1702 for a product);
    /// ``attributeType`` is the same number with its name.
    public let type: Int
    /// The attribute's version field.
    public let version: Int
    /// The content of the attribute's OCTET STRING: usually a DER element (UTF8String, IA5String,
    /// INTEGER or SET), raw bytes for the opaque value (4) and the SHA-1 hash (5).
    public let value: ByteString

    /// Makes an attribute from its parts.
    public init(type: Int, version: Int, value: ByteString) {
        self.type = type
        self.version = version
        self.value = value
    }

    /// Makes an attribute of a named type from its parts.
    public init(type: ReceiptAttributeType, version: Int, value: ByteString) {
        self.init(type: type.rawValue, version: version, value: value)
    }

    /// The attribute's type, to compare with a named one: `attribute.attributeType == .bundleID`.
    public var attributeType: ReceiptAttributeType { ReceiptAttributeType(rawValue: type) }
}
