import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// Truncated, oversized, deeply nested and otherwise hostile bytes: each gets its error code,
/// never a crash, a hang or an allocation driven by a declared length.
struct HostileInputTests {
    @Test func everyTruncationOfADERReceiptIsReportedAsTruncated() throws {
        let bytes = try fixture("sample.receipt")
        for length in 1..<bytes.count {
            let code = errorCode { try ReceiptContainer.parse(Array(bytes.prefix(length))) }
            #expect(code == .truncated, "prefix of \(length) bytes gave \(String(describing: code))")
        }
        #expect(errorCode { try ReceiptContainer.parse([]) } == .notPKCS7)
    }

    @Test func everyTruncationOfABERReceiptIsReportedAsTruncated() throws {
        let bytes = try fixture("storekit.receipt")
        for length in 1..<bytes.count {
            let code = errorCode { try ReceiptContainer.parse(Array(bytes.prefix(length))) }
            #expect(code == .truncated, "prefix of \(length) bytes gave \(String(describing: code))")
        }
    }

    @Test func everyTruncationOfAPayloadIsReportedAsTruncated() throws {
        let payload = try ReceiptContainer.parse(fixture("sample.receipt")).payload
        for length in 1..<payload.count {
            let code = errorCode { try ReceiptPayloadDecoder.decode(Array(payload.prefix(length))) }
            #expect(code == .truncated, "prefix of \(length) bytes gave \(String(describing: code))")
        }
    }

    @Test func trailingBytesAreRejected() throws {
        #expect(errorCode { try ReceiptContainer.parse(fixture("sample.receipt") + [0]) } == .trailingBytes)
        let payload = try ReceiptContainer.parse(fixture("sample.receipt")).payload
        #expect(errorCode { try ReceiptPayloadDecoder.decode(payload + [0, 0]) } == .trailingBytes)
    }

    @Test func hugeDeclaredLengthsAllocateNothing() {
        // 4 GiB declared in 6 bytes: rejected before any allocation.
        #expect(errorCode { try ReceiptContainer.parse([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]) } == .truncated)
        #expect(errorCode { try ReceiptPayloadDecoder.decode([0x31, 0x84, 0xFF, 0xFF, 0xFF, 0xF0, 0x30]) } == .truncated)
        // Lengths that do not fit a machine word.
        #expect(errorCode { try ReceiptContainer.parse([0x30, 0x88] + Array(repeating: 0xFF, count: 8)) } == .lengthOverflow)
        #expect(errorCode { try ReceiptContainer.parse([0x30, 0x89] + Array(repeating: 0x01, count: 9)) } == .lengthOverflow)
        #expect(errorCode { try ReceiptPayloadDecoder.decode([0x31, 0xFF]) } == .lengthOverflow)
    }

    @Test func deepIndefiniteNestingIsRejected() {
        let depth = DecodingLimits.maximumDepth + 5
        let bytes = Array([[UInt8]](repeating: [0x30, 0x80], count: depth).joined())
            + Array(repeating: 0, count: depth * 2)
        #expect(errorCode { try ReceiptContainer.parse(bytes) } == .nestingTooDeep)
        // Within the limit the same shape is only not a SignedData.
        let shallow = Array([[UInt8]](repeating: [0x30, 0x80], count: 3).joined()) + Array(repeating: 0, count: 6)
        #expect(errorCode { try ReceiptContainer.parse(shallow) } == .notPKCS7)
    }

    @Test func indefiniteLengthsAreNotDERInThePayload() {
        #expect(errorCode { try ReceiptPayloadDecoder.decode([0x31, 0x80, 0x00, 0x00]) } == .malformedEncoding)
    }

    @Test func oversizedInputIsRejectedBeforeParsing() {
        let bytes = [UInt8](repeating: 0x30, count: DecodingLimits.maximumInputSize + 1)
        #expect(errorCode { try ReceiptContainer.parse(bytes) } == .tooLarge)
        let text = [UInt8](repeating: UInt8(ascii: "A"), count: DecodingLimits.maximumInputSize * 3 / 2 + 1)
        #expect(errorCode { try ReceiptInput.receiptBytes(from: text) } == .tooLarge)
    }

    @Test func inputLayerClassifiesWhatItCannotUse() throws {
        #expect(errorCode { try ReceiptInput.receiptBytes(from: Array("MIIT*not base64".utf8)) } == .notBase64)
        #expect(errorCode { try ReceiptInput.receiptBytes(from: Array("QUJD".utf8)) } == .notPKCS7)  // "ABC"
        #expect(errorCode { try ReceiptInput.receiptBytes(from: [0x00, 0xFF, 0x10]) } == .notPKCS7)
        #expect(errorCode { try ReceiptInput.receiptBytes(from: Array("   \n".utf8)) } == .notPKCS7)
        #expect(errorCode { try ReceiptInput.receiptBytes(from: Array("{\"password\": \"x\"}".utf8)) } == .invalidJSON)
        #expect(errorCode { try ReceiptInput.receiptBytes(from: Array("{\"receipt-data\": \"%%%\"}".utf8)) } == .notBase64)
        let legacyText = Array("{\n\t\"signature\" = \"AA==\";\n\t\"purchase-info\" = \"AA==\";\n}".utf8)
        #expect(errorCode { try ReceiptInput.receiptBytes(from: legacyText) } == .legacyTransactionReceipt)
        let wrapped = try fixture("sample.b64")
        #expect(try ReceiptInput.receiptBytes(from: wrapped) == fixture("sample.receipt"))
    }

    @Test func contentInfoOfAnotherTypeIsNotSignedData() {
        let bytes = DER.sequence(DER.oid(OID.data), DER.element(0xA0, DER.octets([1, 2, 3])))
        #expect(errorCode { try ReceiptContainer.parse(bytes) } == .notSignedData)
        #expect(errorCode { try ReceiptContainer.parse(DER.sequence(DER.integer(1))) } == .notPKCS7)
    }

    @Test func aLargeForgedReceiptIsRejectedByItsSignature() throws {
        // A 3 MB payload that claims to be signed by the test signer: the verifier reads the
        // creation date, hashes once, checks one signature, and stops.
        let signer = try Certificate(der: ByteString(pki("test-signer.der")))
        let entry = DER.attribute(17, DER.set([DER.attribute(1702, DER.utf8("com.example.forged")),
                                               DER.attribute(1703, DER.utf8("1"))]))
        let payload = DER.set([DER.attribute(12, DER.ia5("2025-06-01T12:00:00Z"))]
                              + Array(repeating: entry, count: 3_000_000 / entry.count))
        #expect(payload.count > 2_900_000)
        let bytes = DER.receipt(payload: payload,
                                certificates: [try pki("test-signer.der"), try pki("test-intermediate.der"), try pki("test-root.der")],
                                issuer: Array(signer.issuer), serial: Array(signer.serialNumber),
                                signature: Array(repeating: 0x42, count: 256))
        #expect(errorCode { try testRootVerifier().verifyAndDecode(bytes) } == .signatureInvalid)
    }

    /// The sample's payload and certificates, re-wrapped with the given changes.
    func rewrappedSample(certificates extra: [[UInt8]] = [], signatureAlgorithm: [UInt8] = OID.rsaEncryption) throws -> [UInt8] {
        let sample = try ReceiptContainer.parse(fixture("sample.receipt"))
        guard case .issuerAndSerialNumber(let issuer, let serial) = try #require(sample.signers.first).identifier else {
            throw ReceiptError(.signerNotFound, "the sample names its signer by issuer and serial")
        }
        return DER.receipt(payload: sample.payload, certificates: extra + sample.certificates.map { Array($0) },
                           issuer: Array(issuer), serial: Array(serial), signature: Array(sample.signers[0].signature),
                           signatureAlgorithm: signatureAlgorithm)
    }

    @Test func rewrappingTheSampleKeepsItValid() throws {
        // The control for the two tests below: the same construction, unchanged, verifies.
        #expect(try testRootVerifier().verifyAndDecode(rewrappedSample()).receipt.inAppPurchases.count == 3)
    }

    @Test func anUnparseableCertificateIsReported() throws {
        let garbage = DER.sequence(DER.integer(1), DER.utf8("not a certificate"))
        #expect(errorCode { try testRootVerifier().verifyAndDecode(rewrappedSample(certificates: [garbage])) } == .invalidCertificate)
    }

    @Test func aSignatureAlgorithmOtherThanRSAIsRefused() throws {
        let rsaPSS: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]  // 1.2.840.113549.1.1.10
        #expect(errorCode { try testRootVerifier().verifyAndDecode(rewrappedSample(signatureAlgorithm: rsaPSS)) } == .unsupportedSignatureAlgorithm)
        // sha1WithRSA does not go with a SHA-256 digest either.
        #expect(errorCode { try testRootVerifier().verifyAndDecode(rewrappedSample(signatureAlgorithm: OID.sha1WithRSA)) } == .unsupportedSignatureAlgorithm)
        #expect(try testRootVerifier().verifyAndDecode(rewrappedSample(signatureAlgorithm: OID.sha256WithRSA)).receipt.bundleID != nil)
    }

    @Test func nestedInAppSetsAreKeptRawNotRecursed() throws {
        // A type 17 inside an in-app entry has no meaning there: kept as bytes, not decoded.
        let inner = DER.attribute(17, DER.set([DER.attribute(1702, DER.integer(7))]))
        let payload = DER.set([DER.attribute(17, DER.set([inner, DER.attribute(1702, DER.utf8("p"))]))])
        let receipt = try ReceiptPayloadDecoder.decode(payload)
        #expect(receipt.inAppPurchases.first?.productID == "p")
        #expect(receipt.inAppPurchases.first?.attributes.first?.type == 17)
    }

    @Test func valueTypesAreChecked() {
        func decode(_ attribute: [UInt8]) -> ReceiptError.Code? {
            errorCode { try ReceiptPayloadDecoder.decode(DER.set([attribute])) }
        }
        #expect(decode(DER.attribute(2, DER.utf8("ok"))) == nil)
        #expect(decode(DER.attribute(2, DER.element(0x0C, [0xC3, 0x28]))) == .wrongValueType)  // invalid UTF-8
        #expect(decode(DER.attribute(10, DER.element(0x16, [0x80]))) == .wrongValueType)        // not IA5
        #expect(decode(DER.attribute(1, DER.utf8("1"))) == .wrongValueType)
        #expect(decode(DER.attribute(12, DER.integer(5))) == .wrongValueType)
        #expect(decode(DER.attribute(2, DER.utf8("a") + [0])) == .trailingBytes)
        #expect(decode(DER.attribute(17, DER.utf8("not a set"))) == .notReceiptPayload)
        #expect(decode(DER.sequence(DER.integer(2), DER.integer(1))) == .notReceiptPayload)
        #expect(decode(DER.sequence(DER.integer(2), DER.integer(1), DER.octets([]), DER.integer(0))) == .notReceiptPayload)
        #expect(decode(DER.sequence(DER.element(0x02, Array(repeating: 1, count: 9)), DER.integer(1), DER.octets([]))) == .integerOverflow)
    }

    /// Strings are checked eight bytes at a time: a byte of 0x80 or above is found wherever it
    /// falls, in a string of any length; valid UTF-8 beyond ASCII stays accepted.
    @Test func stringBytesAreCheckedAtEveryPosition() throws {
        for length in 1...20 {
            for position in 0..<length {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                bytes[position] = 0x80
                let ia5 = DER.set([DER.attribute(10, DER.element(0x16, bytes))])
                #expect(errorCode { try ReceiptPayloadDecoder.decode(ia5) } == .wrongValueType, "IA5 \(length) \(position)")
                let utf8 = DER.set([DER.attribute(2, DER.element(0x0C, bytes))])
                #expect(errorCode { try ReceiptPayloadDecoder.decode(utf8) } == .wrongValueType, "UTF-8 \(length) \(position)")
            }
            let text = String(repeating: "a", count: length - 1) + "é"
            #expect(try ReceiptPayloadDecoder.decode(DER.set([DER.attribute(2, DER.utf8(text))])).bundleID == text)
            let ascii = String(repeating: "b", count: length)
            #expect(try ReceiptPayloadDecoder.decode(DER.set([DER.attribute(10, DER.ia5(ascii))])).ageRating == ascii)
        }
    }

    @Test func integersAreSigned64Bit() throws {
        let values: [Int64] = [0, 1, 127, 128, 255, 256, -1, -128, -129, Int64.max, Int64.min, 5_000_000_000_123_456]
        for value in values {
            let receipt = try ReceiptPayloadDecoder.decode(DER.set([DER.attribute(1, DER.integer(value))]))
            #expect(receipt.appItemID == value)
        }
        // A redundant leading zero byte is tolerated; a ninth significant byte is not.
        let padded = DER.element(0x02, [0x00, 0x00, 0x01])
        #expect(try ReceiptPayloadDecoder.decode(DER.set([DER.attribute(1, padded)])).appItemID == 1)
    }
}
