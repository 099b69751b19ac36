import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The raw attributes are kept as the SET's bytes and read on demand: these tests check that
/// what comes back is exactly what was encoded, whatever the shape of the encoding.
struct ReceiptAttributeSetTests {
    /// Attributes of every shape the reader distinguishes: one- and two-byte INTEGERs (the
    /// compact path), longer and negative ones, a redundant sign byte, long-form lengths.
    static let shapes: [(type: Int, version: Int, encoding: [UInt8], value: [UInt8])] = {
        let long = [UInt8](repeating: 0xA5, count: 300)
        let ints: [(Int, Int, [UInt8], [UInt8])] = [
            (2, 1, DER.attribute(2, DER.utf8("com.example.app")), DER.utf8("com.example.app")),
            (1702, 1, DER.attribute(1702, DER.utf8("p")), DER.utf8("p")),
            (70_000, -3, DER.attribute(70_000, [1, 2, 3], version: -3), [1, 2, 3]),
            (Int(Int64.max), Int(Int64.min), DER.attribute(Int64.max, [], version: Int64.min), []),
            (4, 1, DER.attribute(4, long), long),
            // type 5 written with a redundant leading zero, which the reader tolerates
            (5, 1, DER.sequence(DER.element(0x02, [0x00, 0x05]), DER.integer(1), DER.octets([9])), [9]),
            (17, 1, DER.sequence(DER.integer(17), DER.integer(1), DER.element(0x04, [UInt8](repeating: 0, count: 128))),
             [UInt8](repeating: 0, count: 128)),
        ]
        return ints.map { (type: $0.0, version: $0.1, encoding: $0.2, value: $0.3) }
    }()

    @Test func aDecodedSetReadsBackEveryAttributeAsEncoded() throws {
        // In a SET whose in-app entry (type 17) is itself a SET, so that it decodes.
        let entry = DER.set([DER.attribute(1702, DER.utf8("p")), DER.attribute(99_999, [0xFF], version: 7)])
        let shapes = Self.shapes.filter { $0.type != 17 }
        let payload = DER.set(shapes.map(\.encoding) + [DER.attribute(17, entry)])
        let receipt = try ReceiptPayloadDecoder.decode(payload)

        #expect(receipt.attributes.count == shapes.count + 1)
        #expect(receipt.attributes.map(\.type) == shapes.map(\.type) + [17])
        #expect(receipt.attributes.map(\.version) == shapes.map(\.version) + [1])
        #expect(receipt.attributes.map { Array($0.value) } == shapes.map(\.value) + [entry])
        #expect(receipt.bundleID == "com.example.app")
        #expect(receipt.sha1Hash.map(Array.init) == [9])

        let purchase = try #require(receipt.inAppPurchases.first)
        #expect(purchase.attributes.count == 2)
        #expect(purchase.attributes.map(\.type) == [1702, 99_999])
        #expect(purchase.attributes.map(\.version) == [1, 7])
        #expect(purchase.attributes.map { Array($0.value) } == [DER.utf8("p"), [0xFF]])
        #expect(purchase.productID == "p")

        // Indices walk the encoding; a purchase's value bytes are a slice of the receipt's.
        var index = receipt.attributes.startIndex
        for expected in shapes.map(\.type) + [17] {
            #expect(receipt.attributes[index].type == expected)
            index = receipt.attributes.index(after: index)
        }
        #expect(index == receipt.attributes.endIndex)
    }

    @Test func aSetMadeInCodeEncodesEveryShape() {
        let attributes = Self.shapes.map { ReceiptAttribute(type: $0.type, version: $0.version, value: ByteString($0.value)) }
        let set = ReceiptAttributeSet(attributes)
        #expect(set.count == attributes.count)
        #expect(Array(set) == attributes)
        #expect(ReceiptAttributeSet([]).isEmpty)
        #expect(ReceiptAttributeSet([]).first == nil)
        let literal: ReceiptAttributeSet = [attributes[0], attributes[1]]
        #expect(Array(literal) == Array(attributes.prefix(2)))
        // Equal sets are equal encodings: the same attributes in another order are another set.
        #expect(ReceiptAttributeSet(attributes) == set)
        #expect(ReceiptAttributeSet(attributes.reversed()) != set)
    }

    /// A set made in code is not held to the decoder's attribute limit; its JSON (written by
    /// JSONWriter from the DER) must still hold every attribute, as its Codable form does.
    @Test func aSetPastTheDecodersLimitWritesEveryAttribute() throws {
        let count = DecodingLimits.maximumAttributeCount + 1
        let set = ReceiptAttributeSet((0..<count).lazy.map { ReceiptAttribute(type: $0 % 3, version: 1, value: ByteString([UInt8]())) })
        var json = JSONWriter()
        set.write(to: &json)
        guard case .array(let written) = try StrictJSON.parse(json.finish()) else { Issue.record("not an array"); return }
        #expect(written.count == count)
        #expect(written.last == .object([(key: "type", value: .number(String((count - 1) % 3))), (key: "value", value: .string("")),
                                         (key: "version", value: .number("1"))]))
    }

    @Test func receiptsRoundTripThroughJSON() throws {
        let verified = try testRootVerifier().verifyAndDecode(fixture("sample.receipt"))
        let original = verified.receipt
        let json = try JSONEncoder().encode(original)
        let decoded = try JSONDecoder().decode(Receipt.self, from: json)
        // The fixture is minimal DER, so re-encoding the attributes gives the same bytes.
        #expect(decoded == original)
        #expect(Array(decoded.attributes) == Array(original.attributes))
        #expect(decoded.inAppPurchases.map { Array($0.attributes) } == original.inAppPurchases.map { Array($0.attributes) })
        // In JSON the attributes are an array of {type, version, value}, as before they were lazy.
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let attributes = try #require(object["attributes"] as? [[String: Any]])
        #expect(attributes.count == original.attributes.count)
        #expect(attributes.first?["type"] as? Int == original.attributes.first?.type)
        #expect(attributes.first?["value"] as? String == original.attributes.first?.value.hex)
    }

    /// Each named type is the number the decoder reads into its property, and in JSON and in
    /// messages a type is still its number.
    @Test func namedTypesAreTheDecodedNumbers() throws {
        func attribute(_ type: ReceiptAttributeType, _ value: [UInt8]) -> [UInt8] { DER.attribute(Int64(type.rawValue), value) }
        let entry = DER.set([attribute(.productID, DER.utf8("p")), attribute(.expiresDate, DER.ia5("2025-06-01T12:00:00Z"))])
        let payload = DER.set([attribute(.bundleID, DER.utf8("b")), attribute(.inAppPurchase, entry)])
        let receipt = try ReceiptPayloadDecoder.decode(payload)
        #expect(receipt.bundleID == "b")
        #expect(receipt.inAppPurchases.first?.productID == "p")
        #expect(receipt.inAppPurchases.first?.expiresDate != nil)
        #expect(receipt.attributes.map(\.attributeType) == [.bundleID, .inAppPurchase])
        #expect(receipt.inAppPurchases.first?.attributes.map(\.type) == [1702, 1708])
        #expect(ReceiptAttribute(type: .bundleID, version: 1, value: ByteString([])) == ReceiptAttribute(type: 2, version: 1, value: ByteString([])))

        #expect(String(decoding: try JSONEncoder().encode([ReceiptAttributeType.expiresDate]), as: UTF8.self) == "[1708]")
        #expect(try JSONDecoder().decode(ReceiptAttributeType.self, from: Data("17".utf8)) == .inAppPurchase)
        #expect("\(ReceiptAttributeType.inAppOriginalPurchaseDate)" == "1706")
    }

    /// Every agreed type has a name of its own (the asn1 view shows it); other numbers have none.
    @Test func namedTypesHaveDistinctNames() {
        let named = (0...2_000).compactMap { ReceiptAttributeType(rawValue: $0).name }
        #expect(named.count == 27)
        #expect(Set(named).count == named.count)
        #expect(ReceiptAttributeType.expiresDate.name == "expiresDate")
        #expect(ReceiptAttributeType.inAppOriginalPurchaseDate.name != ReceiptAttributeType.originalPurchaseDate.name)
        #expect(ReceiptAttributeType(rawValue: 1799).name == nil)
    }
}
