#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes the signed payload of an app receipt: a DER `SET OF ReceiptAttribute` where
///
///     ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
///
/// and each type 17 value is again such a SET, for one in-app purchase. Attribute order carries
/// no meaning. Attributes with an agreed meaning must hold the ASN.1 type that meaning requires
/// and may occur once per set; every attribute is also kept raw.
public enum ReceiptPayloadDecoder {
    /// Decodes a whole payload. The bytes are not verified here: see ``ReceiptVerifier``.
    public static func decode(_ payload: [UInt8]) throws(ReceiptError) -> Receipt {
        let reader = ASN1Reader(payload, allowsIndefiniteLength: false)
        let set = try attributeSet(reader, in: 0..<payload.count, depth: 0, what: "payload")
        var receipt = Receipt()
        var seen = SeenTypes(base: 0)
        try forEachAttribute(reader, in: set, depth: 0) { (attribute, valueRange) throws(ReceiptError) in
            receipt.attributes.append(attribute)
            let value = Value(reader: reader, range: valueRange, type: attribute.type)
            switch attribute.type {
            case 17:
                guard receipt.inAppPurchases.count < DecodingLimits.maximumInAppPurchases else {
                    throw ReceiptError(.tooLarge, "more than \(DecodingLimits.maximumInAppPurchases) in-app purchases")
                }
                receipt.inAppPurchases.append(try decodeInAppPurchase(reader, in: valueRange))
                return
            case 0: receipt.receiptType = try value.string()
            case 1: receipt.appItemID = try value.integer()
            case 2: receipt.bundleID = try value.string()
            case 3: receipt.applicationVersion = try value.string()
            case 4: receipt.opaqueValue = attribute.value
            case 5: receipt.sha1Hash = attribute.value
            case 10: receipt.ageRating = try value.string()
            case 12: receipt.creationDate = try value.date()
            case 15: receipt.downloadID = try value.integer()
            case 16: receipt.versionExternalIdentifier = try value.integer()
            case 18: receipt.originalPurchaseDate = try value.date()
            case 19: receipt.originalApplicationVersion = try value.string()
            case 21: receipt.expirationDate = try value.date()
            default: return
            }
            try seen.insert(attribute.type)
        }
        return receipt
    }

    /// Finds the receipt creation date (attribute 12) without decoding anything else.
    ///
    /// Verification needs this date before the signature is known to be good, so it reads as
    /// little of the untrusted payload as it can: one pass over the top-level attributes.
    static func creationDate(in payload: [UInt8]) throws(ReceiptError) -> Date? {
        let reader = ASN1Reader(payload, allowsIndefiniteLength: false)
        let set = try attributeSet(reader, in: 0..<payload.count, depth: 0, what: "payload")
        var found: Date?
        var seen = false
        try forEachAttribute(reader, in: set, depth: 0) { (attribute, valueRange) throws(ReceiptError) in
            guard attribute.type == 12 else { return }
            guard !seen else { throw ReceiptError(.duplicateAttribute, "attribute 12 occurs twice") }
            seen = true
            found = try Value(reader: reader, range: valueRange, type: 12).date()
        }
        return found
    }

    private static func decodeInAppPurchase(_ reader: ASN1Reader, in range: Range<Int>) throws(ReceiptError) -> InAppPurchase {
        let set = try attributeSet(reader, in: range, depth: 3, what: "in-app purchase (attribute 17)")
        var purchase = InAppPurchase()
        var seen = SeenTypes(base: 1701)
        try forEachAttribute(reader, in: set, depth: 3) { (attribute, valueRange) throws(ReceiptError) in
            purchase.attributes.append(attribute)
            let value = Value(reader: reader, range: valueRange, type: attribute.type)
            switch attribute.type {
            case 1701: purchase.quantity = try value.integer()
            case 1702: purchase.productID = try value.string()
            case 1703: purchase.transactionID = try value.string()
            case 1704: purchase.purchaseDate = try value.date()
            case 1705: purchase.originalTransactionID = try value.string()
            case 1706: purchase.originalPurchaseDate = try value.date()
            case 1707: purchase.productType = try value.integer()
            case 1708: purchase.expiresDate = try value.date()
            case 1711: purchase.webOrderLineItemID = try value.integer()
            case 1712: purchase.cancellationDate = try value.date()
            case 1713: purchase.isTrialPeriod = try value.boolean()
            case 1719: purchase.isInIntroOfferPeriod = try value.boolean()
            case 1721: purchase.promotionalOfferID = try value.string()
            default: return
            }
            try seen.insert(attribute.type)
        }
        return purchase
    }

    private static func attributeSet(_ reader: ASN1Reader, in range: Range<Int>, depth: Int,
                                     what: String) throws(ReceiptError) -> ASN1Element {
        guard range.lowerBound < range.upperBound, reader.bytes[range.lowerBound] == ASN1Tag.set else {
            throw ReceiptError(.notReceiptPayload, "the \(what) is not a SET of attributes")
        }
        return try reader.onlyElement(in: range, depth: depth)
    }

    /// Calls `body` with each attribute of `set` and the range of its OCTET STRING content.
    private static func forEachAttribute(
        _ reader: ASN1Reader, in set: ASN1Element, depth: Int,
        _ body: (ReceiptAttribute, Range<Int>) throws(ReceiptError) -> Void
    ) throws(ReceiptError) {
        var attributes = reader.children(of: set, depth: depth)
        var count = 0
        while let sequence = try attributes.next() {
            count += 1
            guard count <= DecodingLimits.maximumAttributeCount else {
                throw ReceiptError(.tooLarge, "more than \(DecodingLimits.maximumAttributeCount) attributes in one set")
            }
            guard sequence.identifier == ASN1Tag.sequence else {
                throw ReceiptError(.notReceiptPayload, "attribute at offset \(sequence.start) is not a SEQUENCE")
            }
            var fields = reader.children(of: sequence, depth: depth + 1)
            let typeField = try fields.next(ASN1Tag.integer, "an attribute type INTEGER at offset \(sequence.start)", else: .notReceiptPayload)
            let versionField = try fields.next(ASN1Tag.integer, "an attribute version INTEGER at offset \(sequence.start)", else: .notReceiptPayload)
            let valueField = try fields.next(ASN1Tag.octetString, "an attribute value OCTET STRING at offset \(sequence.start)", else: .notReceiptPayload)
            guard fields.isAtEnd else {
                throw ReceiptError(.notReceiptPayload, "attribute at offset \(sequence.start) has more than three fields")
            }
            let type = try reader.int64(typeField)
            let version = try reader.int64(versionField)
            let attribute = ReceiptAttribute(type: Int(type), version: Int(version),
                                             value: ByteString(reader.bytes[valueField.contentRange]))
            try body(attribute, valueField.contentRange)
        }
    }

    /// Remembers which named attributes a set has had, to reject a second one: two bundle
    /// identifiers in one receipt leave it to each reader to pick one, which an attacker can use.
    /// Named types lie within 64 of `base` (0...21 at the top, 1701...1721 in a purchase).
    private struct SeenTypes {
        let base: Int
        private var bits: UInt64 = 0
        init(base: Int) { self.base = base }
        mutating func insert(_ type: Int) throws(ReceiptError) {
            let bit: UInt64 = 1 << UInt64(type - base)
            guard bits & bit == 0 else {
                throw ReceiptError(.duplicateAttribute, "attribute \(type) occurs twice")
            }
            bits |= bit
        }
    }

    /// The value of one attribute, read as the type its meaning requires.
    private struct Value {
        let reader: ASN1Reader
        let range: Range<Int>
        let type: Int

        private func element() throws(ReceiptError) -> ASN1Element {
            do throws(ReceiptError) {
                return try reader.onlyElement(in: range, depth: 5)
            } catch {
                throw ReceiptError(error.code, "attribute \(type): \(error.reason)")
            }
        }

        func string() throws(ReceiptError) -> String {
            let element = try element()
            let content = reader.bytes[element.contentRange]
            switch element.identifier {
            case ASN1Tag.utf8String:
                if let text = String(validatingUTF8Bytes: content) { return text }
                throw ReceiptError(.wrongValueType, "attribute \(type) is not valid UTF-8")
            case ASN1Tag.ia5String:
                guard content.allSatisfy({ $0 < 0x80 }) else {
                    throw ReceiptError(.wrongValueType, "attribute \(type) is not a valid IA5String")
                }
                return String(decoding: content, as: UTF8.self)
            default:
                throw ReceiptError(.wrongValueType, "attribute \(type) should be a string, found tag 0x\(String(element.identifier, radix: 16))")
            }
        }

        func date() throws(ReceiptError) -> Date? {
            let element = try element()
            guard element.identifier == ASN1Tag.ia5String || element.identifier == ASN1Tag.utf8String else {
                throw ReceiptError(.wrongValueType, "attribute \(type) should be a date string, found tag 0x\(String(element.identifier, radix: 16))")
            }
            if element.contentRange.isEmpty { return nil }
            guard let date = RFC3339.parse(reader.bytes, element.contentRange) else {
                let text = String(decoding: reader.bytes[element.contentRange.prefix(64)], as: UTF8.self)
                throw ReceiptError(.invalidDate, "attribute \(type) is not an RFC 3339 date: \"\(text)\"")
            }
            return date
        }

        func integer() throws(ReceiptError) -> Int64 {
            let element = try element()
            guard element.identifier == ASN1Tag.integer else {
                throw ReceiptError(.wrongValueType, "attribute \(type) should be an INTEGER, found tag 0x\(String(element.identifier, radix: 16))")
            }
            do throws(ReceiptError) {
                return try ASN1Reader.int64(reader.bytes, element.contentRange)
            } catch {
                throw ReceiptError(error.code, "attribute \(type): \(error.reason)")
            }
        }

        func boolean() throws(ReceiptError) -> Bool { try integer() != 0 }
    }
}

extension String {
    /// The text of `bytes` if they are valid UTF-8, else nil (never a lossy repair).
    init?(validatingUTF8Bytes bytes: ArraySlice<UInt8>) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self.init(decoding: bytes, as: UTF8.self)
    }
}
