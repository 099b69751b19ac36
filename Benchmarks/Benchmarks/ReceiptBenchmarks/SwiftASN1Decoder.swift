// The typed receipt decode on apple/swift-asn1's DER parser, for the hand-written vs swift-asn1
// decision (BENCHMARKS.md). It builds the same models as ReceiptPayloadDecoder, with the same
// date reader, so the difference between the two is the DER reading.
import Foundation
@_spi(Benchmarks) import ReceiptParser
import SwiftASN1

enum SwiftASN1Decoder {
    struct Failure: Error {}

    static func decode(_ payload: [UInt8]) throws -> Receipt {
        var receipt = Receipt()
        receipt.attributes = try forEachAttribute(DER.parse(payload)) { attribute in
            switch attribute.type {
            case 17: receipt.inAppPurchases.append(try purchase(attribute.value))
            case 0: receipt.receiptType = try string(attribute.value)
            case 1: receipt.appItemID = try integer(attribute.value)
            case 2: receipt.bundleID = try string(attribute.value)
            case 3: receipt.applicationVersion = try string(attribute.value)
            case 4: receipt.opaqueValue = attribute.value
            case 5: receipt.sha1Hash = attribute.value
            case 10: receipt.ageRating = try string(attribute.value)
            case 12: receipt.creationDate = try date(attribute.value)
            case 15: receipt.downloadID = try integer(attribute.value)
            case 16: receipt.versionExternalIdentifier = try integer(attribute.value)
            case 18: receipt.originalPurchaseDate = try date(attribute.value)
            case 19: receipt.originalApplicationVersion = try string(attribute.value)
            case 21: receipt.expirationDate = try date(attribute.value)
            default: break
            }
        }
        return receipt
    }

    private static func purchase(_ value: ByteString) throws -> InAppPurchase {
        var purchase = InAppPurchase()
        purchase.attributes = try forEachAttribute(DER.parse(Array(value))) { attribute in
            switch attribute.type {
            case 1701: purchase.quantity = try integer(attribute.value)
            case 1702: purchase.productID = try string(attribute.value)
            case 1703: purchase.transactionID = try string(attribute.value)
            case 1704: purchase.purchaseDate = try date(attribute.value)
            case 1705: purchase.originalTransactionID = try string(attribute.value)
            case 1706: purchase.originalPurchaseDate = try date(attribute.value)
            case 1707: purchase.productType = try integer(attribute.value)
            case 1708: purchase.expiresDate = try date(attribute.value)
            case 1711: purchase.webOrderLineItemID = try integer(attribute.value)
            case 1712: purchase.cancellationDate = try date(attribute.value)
            case 1713: purchase.isTrialPeriod = try integer(attribute.value) != 0
            case 1719: purchase.isInIntroOfferPeriod = try integer(attribute.value) != 0
            case 1721: purchase.promotionalOfferID = try string(attribute.value)
            default: break
            }
        }
        return purchase
    }

    /// Reads each attribute of `set` and returns the set's raw attributes as the decoder keeps
    /// them: its content bytes, shared, not copied.
    private static func forEachAttribute(_ set: ASN1Node, _ body: (ReceiptAttribute) throws -> Void) throws -> ReceiptAttributeSet {
        guard set.identifier == .set, case .constructed(let children) = set.content else { throw Failure() }
        var first: Int?
        var end = set.encodedBytes.endIndex
        var count = 0
        for child in children {
            let attribute = try DER.sequence(child, identifier: .sequence) { nodes in
                let type = try Int(derEncoded: &nodes)
                let version = try Int(derEncoded: &nodes)
                let value = try ASN1OctetString(derEncoded: &nodes)
                return ReceiptAttribute(type: type, version: version, value: ByteString(value.bytes))
            }
            try body(attribute)
            first = first ?? child.encodedBytes.startIndex
            end = child.encodedBytes.endIndex
            count += 1
        }
        return ReceiptAttributeSet(checkedContent: set.encodedBytes[(first ?? end)..<end], count: count)
    }

    private static func node(_ value: ByteString) throws -> ASN1Node { try DER.parse(Array(value)) }

    private static func string(_ value: ByteString) throws -> String {
        let node = try node(value)
        switch node.identifier {
        case .utf8String: return String(try ASN1UTF8String(derEncoded: node))
        case .ia5String: return String(try ASN1IA5String(derEncoded: node))
        default: throw Failure()
        }
    }

    private static func integer(_ value: ByteString) throws -> Int64 { try Int64(derEncoded: node(value)) }

    private static func date(_ value: ByteString) throws -> Date? {
        let node = try node(value)
        guard node.identifier == .ia5String || node.identifier == .utf8String,
              case .primitive(let bytes) = node.content else { throw Failure() }
        if bytes.isEmpty { return nil }
        guard let date = RFC3339.date(utf8: bytes) else { throw Failure() }
        return date
    }
}
