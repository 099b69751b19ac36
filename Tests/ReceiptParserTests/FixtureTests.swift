import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The generated receipts of TestReceipts/ (a test PKI shaped like Apple's): every receipt case's
/// outcome as TestReceipts/cases.json records it, and the sample's decoded values.
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

    /// Every receipt case (TestReceipts/cases.json), each under its options' trust by a new
    /// verifier, again by the same verifier (a warm chain cache) and by one without a cache: the
    /// cache never changes an outcome. A verified chain ends at the configured anchor, and the
    /// decoded values the case lists hold.
    @Test(arguments: FixtureManifest.receiptCases)
    func everyReceiptCaseGivesItsRecordedOutcome(_ item: FixtureCase) throws {
        let bytes = try item.bytes()
        let cached = try item.options.verifier()
        let uncached = try item.options.verifier(chainCacheCapacity: 0)
        for (run, verifier) in [("new", cached), ("warm cache", cached), ("no cache", uncached)] {
            let (error, verified) = FixtureManifest.outcome { () throws(ReceiptError) in try verifier.verifyAndDecode(bytes) }
            #expect(error == item.error, "\(item), \(run)")
            guard let verified, run == "new" else { continue }
            if let anchor = item.options.anchorFile {
                let fingerprint = try Certificate(der: ByteString(FixtureManifest.bytes(anchor))).sha256Fingerprint.hex
                #expect(verified.verification.chain.last?.sha256 == fingerprint, "\(item)")
            }
            for (name, value) in (item.receipt ?? [:]).sorted(by: { $0.key < $1.key }) {
                let actual = try #require(FixtureCase.Value.of(name, in: verified.receipt), "no test reads \(name)")
                #expect(actual == value, "\(item): \(name)")
            }
        }
        if item.receipt != nil {
            #expect(item.error == nil, "\(item): decoded values on a case that does not verify")
        }
        if let expected = item.decoder {
            let payload = try ReceiptContainer.parse(bytes).payload
            #expect(FixtureManifest.outcome { () throws(ReceiptError) in try ReceiptPayloadDecoder.decode(payload) }.error == expected)
        }
    }

    /// Every file of receipts/, hostile/ and jws/ has cases in the manifest and no case is listed
    /// twice; each receipt is small (jws/ has tokens at and over the 1 MiB limit on purpose).
    @Test func everyGeneratedFileIsInTheManifest() throws {
        let cases = try FixtureManifest.load()
        var files: [String] = []
        for folder in ["receipts", "hostile", "jws"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: Paths.fixtures.appendingPathComponent(folder).path)
            files += names.filter { $0 != "SHA256SUMS" }.map { "\(folder)/\($0)" }
        }
        let runs = cases.map(\.testDescription)
        #expect(Set(runs).count == runs.count, "a case is listed twice")
        #expect(Set(files) == Set(cases.map(\.file)))
        for file in Set(cases.filter { $0.input == .receipt }.map(\.file)) {
            #expect(try FixtureManifest.bytes(file).count < 1 << 20, "\(file)")
        }
    }

    @Test func storeKitReceiptIsBERWithItsOwnCertificate() throws {
        let bytes = try fixture("storekit.receipt")
        let container = try ReceiptContainer.parse(bytes)
        #expect(container.usesIndefiniteLengths)
        let storeKit = ReceiptVerifier(anchor: try .storeKitTesting(certificate: pki("storekit-test.pem")))
        let verified = try storeKit.verifyAndDecode(bytes)
        #expect(verified.receipt.creationDate == RFC3339.date(from: "2025-06-01T12:00:00Z"))  // +0100
        #expect(verified.receipt.expirationDate == RFC3339.date(from: "4001-01-01T00:00:00Z"))
        #expect(verified.verification.chain.count == 1)
        // Nor does StoreKit mode accept another StoreKit certificate.
        let otherCertificate = ReceiptVerifier(anchor: try .storeKitTesting(certificate: pki("self-signed-signer.der")))
        #expect(errorCode { try otherCertificate.verifyAndDecode(bytes) } == .untrustedChain)
    }

    @Test func callerTimeIsTheValidationTime() throws {
        let at = try #require(RFC3339.date(from: "2025-03-01T00:00:00Z"))
        let verifier = try testRootVerifier(VerificationPolicy(validationTime: .instant(at)))
        let verified = try verifier.verifyAndDecode(fixture("no-creation-date.receipt"))
        #expect(verified.verification.validationTime == at)
    }

    @Test func customRootAcceptsPEMAndRejectsGarbage() throws {
        let pem = ReceiptVerifier(anchor: try .appStore(rootCertificate: pki("test-root.pem")))
        #expect(try pem.verifyAndDecode(fixture("sample.receipt")).receipt.inAppPurchases.count == 3)
        #expect(errorCode { try TrustAnchor.appStore(rootCertificate: Array("not a certificate".utf8)) } == .invalidAnchor)
        #expect(errorCode { try TrustAnchor.storeKitTesting(certificate: []) } == .invalidAnchor)
    }
}
