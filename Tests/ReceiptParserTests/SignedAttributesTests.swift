import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// Signed attributes are checked in the order they come, as RFC 5652 §5.4 reads them: the
/// first wrong one decides the code, so a wrong digest stays a verification failure (21003)
/// whatever follows it.
struct SignedAttributesTests {
    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        DERWriter.append(tag, content, to: &out)
        return out
    }

    static func attribute(_ type: [UInt8], _ value: [UInt8]) -> [UInt8] {
        element(ASN1Tag.sequence, element(ASN1Tag.objectIdentifier, type) + element(ASN1Tag.set, value))
    }

    static let contentIsData = attribute(OID.contentTypeAttribute, element(ASN1Tag.objectIdentifier, OID.data))
    static let contentIsNotData = attribute(OID.contentTypeAttribute, element(ASN1Tag.objectIdentifier, OID.signedData))
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        attribute(OID.messageDigestAttribute, element(ASN1Tag.octetString, bytes))
    }

    /// The attributes as a SignerInfo stores them: `[0] IMPLICIT`.
    static func signedAttributes(_ attributes: [UInt8]...) -> ByteString {
        ByteString(element(ASN1Tag.contextSpecific(0, constructed: true), attributes.flatMap { $0 }))
    }

    static func code(_ der: ByteString) -> ReceiptError.Code? {
        errorCode { try SignedAttributes(der: der, contentDigest: { [1, 2, 3] }) }
    }

    @Test func matchingAttributesGiveTheBytesSignedAsASet() throws {
        let der = Self.signedAttributes(Self.contentIsData, Self.digest([1, 2, 3]))
        let attributes = try SignedAttributes(der: der, contentDigest: { [1, 2, 3] })
        #expect(attributes.signedBytes.first == ASN1Tag.set)
        #expect(Array(attributes.signedBytes.dropFirst()) == Array(der.dropFirst()))
    }

    @Test func theFirstWrongAttributeDecides() {
        #expect(Self.code(Self.signedAttributes(Self.digest([9]), Self.contentIsNotData)) == .messageDigestMismatch)
        #expect(Self.code(Self.signedAttributes(Self.contentIsNotData, Self.digest([9]))) == .unsupportedContentType)
        #expect(Self.code(Self.signedAttributes(Self.digest([9]), [0x30, 0x00])) == .messageDigestMismatch)
    }

    @Test func eachAttributeOnceAndBothPresent() {
        #expect(Self.code(Self.signedAttributes(Self.contentIsData, Self.contentIsData, Self.digest([1, 2, 3]))) == .messageDigestMismatch)
        #expect(Self.code(Self.signedAttributes(Self.contentIsData, Self.digest([1, 2, 3]), Self.digest([1, 2, 3]))) == .messageDigestMismatch)
        #expect(Self.code(Self.signedAttributes(Self.contentIsData)) == .messageDigestMismatch)
        #expect(Self.code(Self.signedAttributes(Self.digest([1, 2, 3]))) == .messageDigestMismatch)
    }
}
