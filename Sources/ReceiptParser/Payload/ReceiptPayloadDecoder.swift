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
        var count = 0
        return try decode(payload[...], keepingInAppPurchases: true, inAppPurchaseCount: &count)
    }

    /// ``decode(_:)`` of a payload that is part of a larger array (the envelope's, as
    /// ``ReceiptContainer`` keeps it): the raw attributes share that array's storage.
    ///
    /// Without `keepingInAppPurchases`, every in-app entry is read and checked just the same
    /// (the same payloads fail, with the same errors) but none is kept and no text of theirs
    /// is made: the receipt's ``Receipt/inAppPurchases`` stay empty. `inAppPurchaseCount` is
    /// set to the number of entries either way.
    static func decode(_ payload: ArraySlice<UInt8>, keepingInAppPurchases: Bool,
                       inAppPurchaseCount: inout Int) throws(ReceiptError) -> Receipt {
        // Filled in place: a Receipt is a few hundred bytes, and each copy of it costs.
        var receipt = Receipt()
        try ASN1Reader.read(payload, rules: .distinguished) { (der) throws(ReceiptError) in
            var decoder = Decoder(payload: payload, bytes: der.bytes, keepsInAppPurchases: keepingInAppPurchases)
            try decoder.decode(into: &receipt)
            inAppPurchaseCount = decoder.inAppPurchaseCount
        }
        return consume receipt  // moved out: a copy would retain and release every field
    }

    /// Decodes one in-app entry: the SET a type 17 attribute holds, by the rules of ``decode(_:)``.
    static func decodeInAppPurchase(_ entry: [UInt8]) throws(ReceiptError) -> InAppPurchase {
        var purchase = InAppPurchase()
        try ASN1Reader.read(entry[...], rules: .distinguished) { (der) throws(ReceiptError) in
            var decoder = Decoder(payload: entry[...], bytes: der.bytes, keepsInAppPurchases: true)
            try decoder.decodeInAppPurchase(into: &purchase)
        }
        return purchase
    }

    /// Finds the receipt creation date (attribute 12) without decoding anything else.
    ///
    /// Verification needs this date before the signature is known to be good, so it reads as
    /// little of the untrusted payload as it can: one pass over the top-level attributes.
    static func creationDate(in payload: ArraySlice<UInt8>) throws(ReceiptError) -> Date? {
        try ASN1Reader.read(payload, rules: .distinguished) { (der) throws(ReceiptError) -> Date? in
            let set = try attributeSet(der, in: 0..<payload.count, what: "payload")
            var found: Date?
            var seen = false
            var attributes = AttributeReader(der.bytes, content: set.contentRange)
            while let attribute = try attributes.next() {
                guard attribute.type == .creationDate else { continue }
                guard !seen else { throw ReceiptError(.duplicateAttribute, "attribute 12 occurs twice") }
                seen = true
                found = try Value(bytes: der.bytes, range: attribute.value, type: .creationDate, makesText: true).date()
            }
            return found
        }
    }

    /// One decode: the payload (whose slices become the raw attributes), its memory, whether
    /// in-app entries are kept or only checked, and the strings already made, so that the
    /// product identifiers repeated in every entry are one String each rather than one
    /// allocation per entry. Like ``AttributeReader`` and `Value` it keeps the memory, not a
    /// reader: the payload is DER, and a reader made where it is used has rules the compiler
    /// folds away.
    private struct Decoder {
        let payload: ArraySlice<UInt8>
        let bytes: UnsafeBufferPointer<UInt8>
        let keepsInAppPurchases: Bool
        var strings = RecentStrings()
        private(set) var inAppPurchaseCount = 0

        private var der: ASN1Reader { ASN1Reader(bytes, rules: .distinguished) }

        /// The bytes at `range` (offsets into `bytes`), sharing the payload's storage.
        private func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
            payload[(payload.startIndex + range.lowerBound)..<(payload.startIndex + range.upperBound)]
        }

        mutating func decode(into receipt: inout Receipt) throws(ReceiptError) {
            let set = try attributeSet(der, in: 0..<payload.count, what: "payload")
            // Checked only: each entry is read into this one, then dropped.
            var checked = InAppPurchase()
            if keepsInAppPurchases {
                let entries = der.countInAppPurchases(in: set.contentRange)
                receipt.inAppPurchases.reserveCapacity(min(entries, DecodingLimits.maximumInAppPurchases))
                strings.isUseful = entries > 1
            }
            var seen = SeenTypes(first: .receiptType)
            var attributes = AttributeReader(bytes, content: set.contentRange)
            while let field = try attributes.next() {
                let value = Value(bytes: bytes, range: field.value, type: field.type, makesText: true)
                switch field.type {
                case .inAppPurchase:
                    guard inAppPurchaseCount < DecodingLimits.maximumInAppPurchases else {
                        throw ReceiptError(.tooLarge, "more than \(DecodingLimits.maximumInAppPurchases) in-app purchases")
                    }
                    inAppPurchaseCount += 1
                    guard keepsInAppPurchases else {
                        try decodeInAppPurchase(in: field.value, into: &checked)
                        continue
                    }
                    // Decoded in place: an InAppPurchase is large, and copying it costs.
                    receipt.inAppPurchases.append(InAppPurchase())
                    try decodeInAppPurchase(in: field.value, into: &receipt.inAppPurchases[receipt.inAppPurchases.count - 1])
                    continue
                case .receiptType: receipt.receiptType = try value.string()
                case .appItemID: receipt.appItemID = try value.integer()
                case .bundleID: receipt.bundleID = try value.string()
                case .applicationVersion: receipt.applicationVersion = try value.string()
                case .opaqueValue: receipt.opaqueValue = ByteString(slice(field.value))
                case .sha1Hash: receipt.sha1Hash = ByteString(slice(field.value))
                case .ageRating: receipt.ageRating = try value.string()
                case .creationDate: receipt.creationDate = try value.date()
                case .downloadID: receipt.downloadID = try value.integer()
                case .versionExternalIdentifier: receipt.versionExternalIdentifier = try value.integer()
                case .originalPurchaseDate: receipt.originalPurchaseDate = try value.date()
                case .originalApplicationVersion: receipt.originalApplicationVersion = try value.string()
                case .expirationDate: receipt.expirationDate = try value.date()
                default: continue
                }
                try seen.insert(field.type)
            }
            receipt.attributes = ReceiptAttributeSet(checkedContent: slice(set.contentRange), count: attributes.count)
        }

        /// The whole payload as one in-app entry.
        mutating func decodeInAppPurchase(into purchase: inout InAppPurchase) throws(ReceiptError) {
            try decodeInAppPurchase(in: 0..<payload.count, into: &purchase)
        }

        private mutating func decodeInAppPurchase(in range: Range<Int>, into purchase: inout InAppPurchase) throws(ReceiptError) {
            let set = try attributeSet(der, in: range, what: "in-app purchase (attribute 17)")
            var seen = SeenTypes(first: .quantity)
            var transaction: (range: Range<Int>, text: String)?
            var attributes = AttributeReader(bytes, content: set.contentRange)
            while let field = try attributes.next() {
                let value = Value(bytes: bytes, range: field.value, type: field.type, makesText: keepsInAppPurchases)
                switch field.type {
                case .quantity: purchase.quantity = try value.integer()
                case .productID: purchase.productID = try value.string(&strings)
                case .transactionID:
                    let text = try value.string()
                    purchase.transactionID = text
                    transaction = (field.value, text)
                case .purchaseDate: purchase.purchaseDate = try value.date()
                case .originalTransactionID:
                    // Usually the transaction itself, or the first purchase of a subscription.
                    if let transaction, der.equal(transaction.range, field.value) {
                        purchase.originalTransactionID = transaction.text
                    } else {
                        purchase.originalTransactionID = try value.string(&strings)
                    }
                case .inAppOriginalPurchaseDate: purchase.originalPurchaseDate = try value.date()
                case .productType: purchase.productType = try value.integer()
                case .expiresDate: purchase.expiresDate = try value.date()
                case .webOrderLineItemID: purchase.webOrderLineItemID = try value.integer()
                case .cancellationDate: purchase.cancellationDate = try value.date()
                case .isTrialPeriod: purchase.isTrialPeriod = try value.boolean()
                case .isInIntroOfferPeriod: purchase.isInIntroOfferPeriod = try value.boolean()
                case .promotionalOfferID: purchase.promotionalOfferID = try value.string(&strings)
                default: continue
                }
                try seen.insert(field.type)
            }
            guard keepsInAppPurchases else { return }  // checked only: sharing the payload costs two atomic operations
            purchase.attributes = ReceiptAttributeSet(checkedContent: slice(set.contentRange), count: attributes.count)
        }
    }

    private static func attributeSet(_ der: ASN1Reader, in range: Range<Int>, what: String) throws(ReceiptError) -> ASN1Element {
        if let set = der.compactElement(ASN1Tag.set, filling: range) { return set }  // an in-app entry's
        guard range.lowerBound < range.upperBound, der[range.lowerBound] == ASN1Tag.set else {
            throw ReceiptError(.notReceiptPayload, "the \(what) is not a SET of attributes")
        }
        return try der.onlyElement(in: range)
    }

    /// Remembers which named attributes a set has had, to reject a second one: two bundle
    /// identifiers in one receipt leave it to each reader to pick one, which an attacker can use.
    /// Named types lie within 64 of `first` (0...21 at the top, 1701...1721 in a purchase).
    private struct SeenTypes {
        let base: Int
        private var bits: UInt64 = 0
        init(first: ReceiptAttributeType) { base = first.rawValue }
        mutating func insert(_ type: ReceiptAttributeType) throws(ReceiptError) {
            let bit: UInt64 = 1 << UInt64(type.rawValue - base)
            guard bits & bit == 0 else {
                throw ReceiptError(.duplicateAttribute, "attribute \(type) occurs twice")
            }
            bits |= bit
        }
    }

    /// The last few strings made from the payload, by their encoding: product identifiers and
    /// original transaction identifiers repeat across entries, and a repeat costs a comparison
    /// instead of an allocation.
    private struct RecentStrings {
        static let size = 8
        private var entries: [(identifier: UInt8, range: Range<Int>, text: String)] = []
        private var next = 0
        /// Whether strings can repeat at all: not with a single in-app entry.
        var isUseful = true

        func find(_ identifier: UInt8, _ range: Range<Int>, in der: ASN1Reader) -> String? {
            for entry in entries where entry.identifier == identifier && der.equal(entry.range, range) {
                return entry.text
            }
            return nil
        }

        mutating func insert(_ identifier: UInt8, _ range: Range<Int>, _ text: String) {
            guard isUseful else { return }
            if entries.count < Self.size {
                if entries.isEmpty { entries.reserveCapacity(Self.size) }  // one allocation per decode
                entries.append((identifier, range, text))
            } else {
                entries[next] = (identifier, range, text)
                next = (next + 1) % Self.size
            }
        }
    }

    /// The value of one attribute, read as the type its meaning requires. Without `makesText`
    /// a string is checked as it would be read, and given as "" rather than made.
    private struct Value {
        let bytes: UnsafeBufferPointer<UInt8>
        let range: Range<Int>
        let type: ReceiptAttributeType
        let makesText: Bool

        private var der: ASN1Reader { ASN1Reader(bytes, rules: .distinguished) }

        @inline(__always)
        private func element() throws(ReceiptError) -> ASN1Element {
            // Nearly every value: the reader's fast path (a low tag and a one-byte length),
            // filling the range exactly.
            if let element = der.shortFormElement(filling: range) { return element }
            return try anyElement()
        }

        private func anyElement() throws(ReceiptError) -> ASN1Element {
            do throws(ReceiptError) {
                return try der.onlyElement(in: range)
            } catch {
                throw ReceiptError(error.code, "attribute \(type): \(error.reason)")
            }
        }

        func string() throws(ReceiptError) -> String {
            let element = try element()
            return try text(element)
        }

        /// A string, shared with an identical earlier one when there is one.
        func string(_ recent: inout RecentStrings) throws(ReceiptError) -> String {
            let element = try element()
            guard makesText else { return try text(element) }
            if let known = recent.find(element.identifier, element.contentRange, in: der) { return known }
            let made = try text(element)
            recent.insert(element.identifier, element.contentRange, made)
            return made
        }

        private func text(_ element: ASN1Element) throws(ReceiptError) -> String {
            let content = UnsafeBufferPointer(rebasing: bytes[element.contentRange])
            switch element.identifier {
            case ASN1Tag.utf8String:
                guard content.isASCII || content.isValidUTF8 else {
                    throw ReceiptError(.wrongValueType, "attribute \(type) is not valid UTF-8")
                }
            case ASN1Tag.ia5String:
                guard content.isASCII else {
                    throw ReceiptError(.wrongValueType, "attribute \(type) is not a valid IA5String")
                }
            default:
                throw ReceiptError(.wrongValueType, "attribute \(type) should be a string, found tag 0x\(String(element.identifier, radix: 16))")
            }
            return makesText ? String(decoding: content, as: UTF8.self) : ""
        }

        func date() throws(ReceiptError) -> Date? {
            let element = try element()
            guard element.identifier == ASN1Tag.ia5String || element.identifier == ASN1Tag.utf8String else {
                throw ReceiptError(.wrongValueType, "attribute \(type) should be a date string, found tag 0x\(String(element.identifier, radix: 16))")
            }
            if element.contentRange.isEmpty { return nil }
            guard let date = RFC3339.parse(bytes, element.contentRange) else {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[element.contentRange.prefix(64)]), as: UTF8.self)
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
                return try der.int64(element.contentRange)
            } catch {
                throw ReceiptError(error.code, "attribute \(type): \(error.reason)")
            }
        }

        func boolean() throws(ReceiptError) -> Bool { try integer() != 0 }
    }
}

extension ASN1Reader {
    /// The number of in-app purchase attributes (type 17) in a SET's content, from the headers alone, without
    /// throwing: the capacity to reserve. The real pass checks everything.
    func countInAppPurchases(in range: Range<Int>) -> Int {
        var cursor = range.lowerBound
        var count = 0
        while cursor < range.upperBound,
              let element = compactElement(ASN1Tag.sequence, at: cursor, limit: range.upperBound)
                ?? (try? element(at: cursor, limit: range.upperBound)) {
            // An in-app entry starts with its type: INTEGER 17, read with the fast paths.
            if smallInteger(at: element.contentStart, limit: element.contentEnd)?.value == ReceiptAttributeType.inAppPurchase.rawValue {
                count += 1
            }
            cursor = element.end
        }
        return count
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether every byte is below 0x80, read eight bytes at a time.
    var isASCII: Bool {
        guard let base = baseAddress else { return true }
        var high: UInt64 = 0
        var offset = 0
        while offset + 8 <= count {
            high |= UnsafeRawPointer(base).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < count {
            high |= UInt64(base[offset])
            offset += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}

extension Collection<UInt8> {
    /// Whether the bytes are valid UTF-8.
    var isValidUTF8: Bool {
        var iterator = makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

extension String {
    /// The text of `bytes` if they are valid UTF-8, else nil (never a lossy repair).
    init?<Bytes: Collection<UInt8>>(validatingUTF8Bytes bytes: Bytes) {
        guard bytes.isValidUTF8 else { return nil }
        self.init(decoding: bytes, as: UTF8.self)
    }
}
