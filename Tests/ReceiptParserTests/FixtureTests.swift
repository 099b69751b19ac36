import Foundation
import Testing
@testable import ReceiptParser

/// The generated receipts of TestReceipts/ (a test PKI shaped like Apple's): every verdict and
/// every failure class, with the exact error code.
struct FixtureTests {
    @Test func sampleDecodesToItsKnownValues() throws {
        let verified = try testRootVerifier().verifyAndDecode(fixture("sample.receipt"))
        let receipt = verified.receipt
        #expect(verified.verification.mode == .appStore)
        #expect(verified.verification.digestAlgorithm == "SHA-256")
        #expect(verified.verification.chain.map(\.subject) == [
            "CN=ReceiptParser Test Receipt Signing,O=ReceiptParser Tests,C=US",
            "CN=ReceiptParser Test WWDR Intermediate,OU=G5,O=ReceiptParser Tests,C=US",
            "CN=ReceiptParser Test Root CA,O=ReceiptParser Tests,C=US",
        ])
        #expect(receipt.receiptType == "ProductionSandbox")
        #expect(receipt.environment == .sandbox)
        #expect(receipt.appItemID == 0)
        #expect(receipt.bundleID == "com.example.receiptparser.sample")
        #expect(receipt.applicationVersion == "1.4.2")
        #expect(receipt.originalApplicationVersion == "1.0")
        #expect(receipt.ageRating == "4+")
        #expect(receipt.creationDate == RFC3339.date(from: "2025-06-01T12:00:00Z"))
        #expect(receipt.creationDate?.timeIntervalSince1970 == 1_748_779_200)
        #expect(receipt.originalPurchaseDate?.timeIntervalSince1970 == 1_375_340_400)
        #expect(receipt.expirationDate == nil)
        #expect(receipt.opaqueValue?.hex == "a1b2c3d4e5f60718293a4b5c6d7e8f90")
        #expect(receipt.sha1Hash?.count == 20)
        #expect(receipt.inAppPurchases.count == 3)

        // The unknown attribute 99 is kept, with its version and bytes.
        let unknown = try #require(receipt.attributes.first { $0.type == 99 })
        #expect(unknown.version == 2)
        #expect(unknown.value.hex == "deadbeef")
        #expect(receipt.attributes.map(\.type) == [0, 1, 2, 3, 4, 5, 10, 12, 17, 15, 16, 17, 99, 18, 17, 19])

        let coins = receipt.inAppPurchases[0]
        #expect(coins.productID == "com.example.coins.100")
        #expect(coins.quantity == 3)
        #expect(coins.productType == 1)
        #expect(coins.expiresDate == nil)  // written as an empty IA5String
        #expect(coins.cancellationDate == nil)

        let subscription = receipt.inAppPurchases[1]
        #expect(subscription.productID == "com.example.pro.monthly")
        #expect(subscription.transactionID == "2000000000000002")
        #expect(subscription.purchaseDate?.timeIntervalSince1970 == 1_747_733_400.25)
        #expect(subscription.expiresDate?.timeIntervalSince1970 == 1_750_411_800)
        #expect(subscription.webOrderLineItemID == 5_000_000_000_123_456)
        #expect(subscription.isTrialPeriod == true)
        #expect(subscription.isInIntroOfferPeriod == false)
        #expect(subscription.promotionalOfferID == "com.example.pro.winback")
        let kept = try #require(subscription.attributes.first { $0.type == 1799 })
        #expect(kept.value.hex == "0c046b657074")  // UTF8String "kept"

        let refunded = receipt.inAppPurchases[2]
        #expect(refunded.purchaseDate == RFC3339.date(from: "2025-04-02T06:00:00Z"))  // written +0200
        #expect(refunded.cancellationDate == RFC3339.date(from: "2025-04-10T07:00:00Z"))  // written -0700
    }

    @Test func deviceHashMatchesTheGeneratorsGUID() throws {
        // SHA-1(GUID ‖ opaque value ‖ bundle id attribute bytes) = attribute 5.
        let receipt = try testRootVerifier().verifyAndDecode(fixture("sample.receipt")).receipt
        let guid: [UInt8] = [0x6F, 0x1C, 0x2D, 0x3E, 0x4A, 0x5B, 0x4C, 0x6D, 0x8E, 0x7F, 0x9A, 0x0B, 0x1C, 0x2D, 0x3E, 0x4F]
        let bundle = try #require(receipt.attributes.first { $0.type == 2 })
        let hash = Digest.sha1.hash(guid + Array(try #require(receipt.opaqueValue)) + Array(bundle.value))
        #expect(ByteString(hash) == receipt.sha1Hash)
    }

    @Test(arguments: ["sample.receipt", "sample.b64", "sample-oneline.b64", "sample-request.json"])
    func everyInputFormOfTheSampleVerifies(_ name: String) throws {
        let receipt = try testRootVerifier().verifyAndDecode(fixture(name)).receipt
        #expect(receipt.bundleID == "com.example.receiptparser.sample")
    }

    @Test(arguments: ["sha1.receipt", "signed-attributes.receipt", "subject-key-id.receipt", "no-in-app.receipt"])
    func validVariantsVerify(_ name: String) throws {
        let verified = try testRootVerifier().verifyAndDecode(fixture(name))
        #expect(verified.receipt.bundleID == "com.example.receiptparser.sample")
        #expect(verified.receipt.inAppPurchases.count == (name == "no-in-app.receipt" ? 0 : 3))
    }

    @Test func sha1IsRejectedWhenSHA256IsRequired() throws {
        let strict = try testRootVerifier(VerificationPolicy(requiresSHA256: true))
        #expect(errorCode { try strict.verifyAndDecode(fixture("sha1.receipt")) } == .digestNotAllowed)
        #expect(try strict.verifyAndDecode(fixture("sample.receipt")).verification.digestAlgorithm == "SHA-256")
    }

    @Test func storeKitReceiptVerifiesOnlyInStoreKitMode() throws {
        let bytes = try fixture("storekit.receipt")
        let container = try ReceiptContainer.parse(bytes)
        #expect(container.usesIndefiniteLengths)
        let storeKit = ReceiptVerifier(anchor: try .storeKitTesting(certificate: pki("storekit-test.pem")))
        let verified = try storeKit.verifyAndDecode(bytes)
        #expect(verified.receipt.environment == .xcode)
        #expect(verified.receipt.creationDate == RFC3339.date(from: "2025-06-01T12:00:00Z"))  // +0100
        #expect(verified.receipt.expirationDate == RFC3339.date(from: "4001-01-01T00:00:00Z"))
        #expect(verified.verification.chain.count == 1)
        #expect(errorCode { try testRootVerifier().verifyAndDecode(bytes) } == .missingAppleExtension)
        #expect(errorCode { try ReceiptVerifier().verifyAndDecode(bytes) } == .missingAppleExtension)
        // StoreKit mode does not accept App Store receipts, nor another StoreKit certificate.
        #expect(errorCode { try storeKit.verifyAndDecode(fixture("sample.receipt")) } == .untrustedChain)
        let otherCertificate = ReceiptVerifier(anchor: try .storeKitTesting(certificate: pki("self-signed-signer.der")))
        #expect(errorCode { try otherCertificate.verifyAndDecode(bytes) } == .untrustedChain)
    }

    @Test func testPKIReceiptsDoNotVerifyAgainstApple() throws {
        #expect(errorCode { try ReceiptVerifier().verifyAndDecode(fixture("sample.receipt")) } == .untrustedChain)
    }

    static let rejections: [(String, ReceiptError.Code)] = [
        ("tampered-payload.receipt", .signatureInvalid),
        ("tampered-signature.receipt", .signatureInvalid),
        ("two-signers.receipt", .signerCount),
        ("signer-not-in-certificates.receipt", .signerNotFound),
        ("content-type-not-data.receipt", .unsupportedContentType),
        ("detached.receipt", .detachedContent),
        ("signed-attributes-bad-digest.receipt", .messageDigestMismatch),
        ("sha512-digest.receipt", .digestNotAllowed),
        ("rogue-signer.receipt", .missingAppleExtension),
        ("intermediate-without-oid.receipt", .missingAppleExtension),
        ("wrong-root.receipt", .untrustedChain),
        ("self-signed-signer.receipt", .untrustedChain),
        ("expired-at-creation.receipt", .certificateNotValidAtTime),
        ("not-yet-valid-at-creation.receipt", .certificateNotValidAtTime),
        ("no-creation-date.receipt", .missingCreationDate),
        ("bad-creation-date.receipt", .invalidDate),
        ("bad-purchase-date.receipt", .invalidDate),
        ("wrong-value-type.receipt", .wrongValueType),
        ("integer-overflow.receipt", .integerOverflow),
        ("duplicate-bundle-id.receipt", .duplicateAttribute),
        ("payload-not-a-set.receipt", .notReceiptPayload),
        ("legacy-transaction.b64", .legacyTransactionReceipt),
        ("not-pkcs7.bin", .notBase64),
    ]

    @Test(arguments: rejections)
    func hostileReceiptIsRejectedWithItsCode(_ name: String, _ code: ReceiptError.Code) throws {
        #expect(errorCode { try testRootVerifier().verifyAndDecode(fixture(name)) } == code)
    }

    @Test func payloadErrorsAreReportedByTheDecoderToo() throws {
        for (name, code) in [("bad-purchase-date.receipt", ReceiptError.Code.invalidDate),
                             ("wrong-value-type.receipt", .wrongValueType),
                             ("integer-overflow.receipt", .integerOverflow),
                             ("duplicate-bundle-id.receipt", .duplicateAttribute),
                             ("payload-not-a-set.receipt", .notReceiptPayload)] {
            let container = try ReceiptContainer.parse(fixture(name))
            #expect(errorCode { try ReceiptPayloadDecoder.decode(container.payload) } == code, "\(name)")
        }
    }

    @Test func callerTimeReplacesTheMissingCreationDate() throws {
        let at = try #require(RFC3339.date(from: "2025-03-01T00:00:00Z"))
        let verifier = try testRootVerifier(VerificationPolicy(validationTime: .instant(at)))
        let verified = try verifier.verifyAndDecode(fixture("no-creation-date.receipt"))
        #expect(verified.verification.validationTime == at)
        // ... and is used instead of the creation date when given.
        #expect(errorCode { try verifier.verifyAndDecode(fixture("expired-at-creation.receipt")) } == nil)
        let late = try testRootVerifier(VerificationPolicy(validationTime: .instant(RFC3339.date(from: "2026-06-01T00:00:00Z")!)))
        #expect(errorCode { try late.verifyAndDecode(fixture("sample.receipt")) } == .certificateNotValidAtTime)
    }

    @Test func customRootAcceptsPEMAndRejectsGarbage() throws {
        let pem = ReceiptVerifier(anchor: try .appStore(rootCertificate: pki("test-root.pem")))
        #expect(try pem.verifyAndDecode(fixture("sample.receipt")).receipt.inAppPurchases.count == 3)
        #expect(errorCode { try TrustAnchor.appStore(rootCertificate: Array("not a certificate".utf8)) } == .invalidAnchor)
        #expect(errorCode { try TrustAnchor.storeKitTesting(certificate: []) } == .invalidAnchor)
    }

    @Test func aRootFromAnotherPKIDoesNotVerify() throws {
        let other = ReceiptVerifier(anchor: try .appStore(rootCertificate: pki("other-root.der")))
        #expect(errorCode { try other.verifyAndDecode(fixture("sample.receipt")) } == .untrustedChain)
        #expect(try other.verifyAndDecode(fixture("wrong-root.receipt")).receipt.bundleID == "com.example.receiptparser.sample")
    }
}
