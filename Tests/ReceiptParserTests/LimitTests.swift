import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// Each documented limit: accepted at the limit, rejected just past it.
struct LimitTests {
    @Test func inputSize() throws {
        // At the limit the size check passes and parsing goes on (to a truncation here).
        var atLimit = [UInt8](repeating: 0, count: DecodingLimits.maximumInputSize)
        atLimit[0] = 0x30
        atLimit[1] = 0x84
        atLimit[2...5] = [0xFF, 0xFF, 0xFF, 0xFF]
        #expect(errorCode { try ReceiptContainer.parse(atLimit) } == .truncated)
        atLimit.append(0)
        #expect(errorCode { try ReceiptContainer.parse(atLimit) } == .tooLarge)
    }

    @Test func inputTextSize() {
        // Base64 text may be 3/2 of the largest receipt (4/3 plus line breaks). At the limit the
        // text is read (and found not to be base64 at its first byte, to keep the test quick);
        // one byte more is refused unread.
        let limit = DecodingLimits.maximumInputSize * 3 / 2
        var text = [UInt8](repeating: UInt8(ascii: "A"), count: limit)
        text[0] = UInt8(ascii: "*")
        #expect(errorCode { try ReceiptInput.receiptBytes(from: text) } == .notBase64)
        text.append(UInt8(ascii: "A"))
        #expect(errorCode { try ReceiptInput.receiptBytes(from: text) } == .tooLarge)
        // The verifier applies the same limit before anything else.
        #expect(errorCode { try ReceiptVerifier().verifyAndDecode(text) } == .tooLarge)
    }

    @Test func nestingDepth() {
        func nested(_ depth: Int) -> [UInt8] {
            Array([[UInt8]](repeating: [0x30, 0x80], count: depth).joined()) + Array(repeating: 0, count: depth * 2)
        }
        // The outermost element is depth 0, so maximumDepth + 1 levels are the most accepted.
        #expect(errorCode { try ReceiptContainer.parse(nested(DecodingLimits.maximumDepth + 1)) } == .notPKCS7)
        #expect(errorCode { try ReceiptContainer.parse(nested(DecodingLimits.maximumDepth + 2)) } == .nestingTooDeep)
    }

    @Test func attributeCount() throws {
        let attribute = DER.attribute(99, [])
        let atLimit = DER.set(Array(repeating: attribute, count: DecodingLimits.maximumAttributeCount))
        #expect(try ReceiptPayloadDecoder.decode(atLimit).attributes.count == DecodingLimits.maximumAttributeCount)
        let past = DER.set(Array(repeating: attribute, count: DecodingLimits.maximumAttributeCount + 1))
        #expect(errorCode { try ReceiptPayloadDecoder.decode(past) } == .tooLarge)
        let purchaseAtLimit = DER.attribute(17, DER.set(Array(repeating: DER.attribute(1799, []), count: DecodingLimits.maximumAttributeCount)))
        #expect(try ReceiptPayloadDecoder.decode(DER.set([purchaseAtLimit])).inAppPurchases.first?.attributes.count == DecodingLimits.maximumAttributeCount)
        let purchase = DER.attribute(17, DER.set(Array(repeating: DER.attribute(1799, []), count: DecodingLimits.maximumAttributeCount + 1)))
        #expect(errorCode { try ReceiptPayloadDecoder.decode(DER.set([purchase])) } == .tooLarge)
    }

    @Test func inAppPurchaseCount() throws {
        let purchase = DER.attribute(17, DER.set([]))
        let atLimit = DER.set(Array(repeating: purchase, count: DecodingLimits.maximumInAppPurchases))
        #expect(try ReceiptPayloadDecoder.decode(atLimit).inAppPurchases.count == DecodingLimits.maximumInAppPurchases)
        let past = DER.set(Array(repeating: purchase, count: DecodingLimits.maximumInAppPurchases + 1))
        #expect(errorCode { try ReceiptPayloadDecoder.decode(past) } == .tooLarge)
    }
}
