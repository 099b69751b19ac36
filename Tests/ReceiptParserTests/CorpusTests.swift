import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The 43 real receipts of ../shared/corpus against their independent decode (asn1crypto) and
/// OpenSSL's verdicts. Skipped, visibly, when ../shared is not beside the repository.
@Suite(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
struct CorpusTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        var testDescription: String { name }
        var receiptURL: URL { Paths.corpus.appendingPathComponent("real/\(name).receipt") }
        var expectedURL: URL { Paths.corpus.appendingPathComponent("expected/\(name).json") }
        func bytes() throws -> [UInt8] { [UInt8](try Data(contentsOf: receiptURL)) }
        func expected() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(contentsOf: expectedURL)) as! [String: Any]
        }
    }

    static let cases: [Case] = {
        let folder = Paths.corpus.appendingPathComponent("real")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".receipt") }.sorted().map { Case(name: String($0.dropLast(8))) }
    }()

    static let storeKitCertificate: [UInt8] = {
        (try? [UInt8](Data(contentsOf: Paths.corpus.appendingPathComponent("certs/StoreKitTestCertificate.der")))) ?? []
    }()

    @Test func corpusIsComplete() {
        #expect(Self.cases.count == 43)
        #expect(Self.cases.filter { $0.name.hasPrefix("xcode-") }.count == 5)
    }

    @Test(arguments: cases)
    func everyAttributeMatchesTheIndependentDecode(_ item: Case) throws {
        let expected = try item.expected()
        let container = try ReceiptContainer.parse(item.bytes())
        let payload = expected["payload"] as! [String: Any]
        #expect(Digest.sha256.hash(container.payload).hexString == payload["sha256"] as! String)
        #expect(container.certificates.count == (expected["certificates"] as! [Any]).count)

        let receipt = try ReceiptPayloadDecoder.decode(container.payload)
        let attributes = expected["attributes"] as! [[String: Any]]
        try #require(receipt.attributes.count == attributes.count)
        var inAppIndex = 0
        for (attribute, expectedAttribute) in zip(receipt.attributes, attributes) {
            try compare(attribute, expectedAttribute, named: { namedValue(of: receipt, type: $0) })
            if attribute.type == 17 {
                let purchase = receipt.inAppPurchases[inAppIndex]
                inAppIndex += 1
                let entries = expectedAttribute["in_app_attributes"] as! [[String: Any]]
                try #require(purchase.attributes.count == entries.count)
                for (inner, expectedInner) in zip(purchase.attributes, entries) {
                    try compare(inner, expectedInner, named: { namedValue(of: purchase, type: $0) })
                }
            }
        }
        let summary = expected["summary"] as! [String: Any]
        #expect(receipt.inAppPurchases.count == summary["in_app_count"] as! Int)
        #expect(receipt.bundleID == summary["bundle_id"] as? String)
        #expect(receipt.environment.rawValue == [
            "Production": "production", "ProductionSandbox": "sandbox", "Xcode": "xcode",
        ][summary["receipt_type"] as! String])
    }

    @Test(arguments: cases)
    func appStoreVerdictMatchesOpenSSL(_ item: Case) throws {
        let expected = try item.expected()
        let openssl = expected["openssl_cms_verify"] as! [String: [String: [String: Any]]]
        let shouldVerify = openssl["apple_inc_root"]!["attime_creation_date"]!["verified"] as! Bool
        #expect(shouldVerify == !item.name.hasPrefix("xcode-"))

        let verifier = ReceiptVerifier()
        if shouldVerify {
            let verified = try verifier.verifyAndDecode(item.bytes())
            let signer = (expected["certificates"] as! [[String: Any]]).first { $0["is_signer"] as! Bool }!
            #expect(verified.verification.chain.count == 3)
            #expect(verified.verification.chain.first?.sha256 == signer["sha256"] as? String)
            #expect(verified.verification.chain.last?.sha256 == TrustAnchor.appleIncRootSHA256)
            let epoch = expected["openssl_attime_epoch"] as! Int
            #expect(verified.verification.validationTime.timeIntervalSince1970 == Double(epoch))
        } else {
            #expect(errorCode { try verifier.verifyAndDecode(item.bytes()) } == .missingAppleExtension)
        }
    }

    @Test(arguments: cases)
    func storeKitVerdictMatchesOpenSSL(_ item: Case) throws {
        let expected = try item.expected()
        let openssl = expected["openssl_cms_verify"] as! [String: [String: [String: Any]]]
        let shouldVerify = openssl["storekit_testing"]!["attime_creation_date"]!["verified"] as! Bool
        #expect(shouldVerify == item.name.hasPrefix("xcode-"))

        let verifier = ReceiptVerifier(anchor: try .storeKitTesting(certificate: Self.storeKitCertificate))
        if shouldVerify {
            let verified = try verifier.verifyAndDecode(item.bytes())
            #expect(verified.verification.mode == .storeKitTesting)
            #expect(verified.receipt.environment == .xcode)
        } else {
            #expect(errorCode { try verifier.verifyAndDecode(item.bytes()) } == .untrustedChain)
        }
    }

    @Test(arguments: cases.filter { !$0.name.hasPrefix("xcode-") })
    func sha1ReceiptsFailOnlyWhenSHA256IsRequired(_ item: Case) throws {
        let expected = try item.expected()
        let digest = (expected["signer_infos"] as! [[String: Any]])[0]["digest_algorithm"] as! String
        let strict = ReceiptVerifier(policy: VerificationPolicy(requiresSHA256: true))
        if digest == "sha1" {
            #expect(errorCode { try strict.verifyAndDecode(item.bytes()) } == .digestNotAllowed)
        } else {
            #expect(try strict.verifyAndDecode(item.bytes()).verification.digestAlgorithm == "SHA-256")
        }
    }

    @Test func verificationAtTodayRejectsExpiredAppleCertificates() throws {
        // Every Apple receipt-signing certificate in the corpus ended by 2026-08-23.
        let now = ReceiptVerifier(policy: VerificationPolicy(validationTime: .instant(RFC3339.date(from: "2026-11-21T00:00:00Z")!)))
        for item in Self.cases where !item.name.hasPrefix("xcode-") {
            #expect(errorCode { try now.verifyAndDecode(item.bytes()) } == .certificateNotValidAtTime, "\(item.name)")
        }
    }

    @Test func appleReceiptJSONAgreesWithApplesOwnResponse() throws {
        // Apple's verifyReceipt answer for one sandbox receipt: product and transaction ids and
        // millisecond dates must agree with ours.
        let name = "sandbox-20200722T1739-com.revenuecat.sampleapp"
        let url = Paths.corpus.appendingPathComponent("apple-verifyreceipt/\(name).verifyReceipt.json")
        let apple = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        let appleReceipt = apple["receipt"] as! [String: Any]
        let inApp = appleReceipt["in_app"] as! [[String: Any]]
        let receipt = try ReceiptVerifier().verifyAndDecode(Case(name: name).bytes()).receipt
        #expect(receipt.bundleID == appleReceipt["bundle_id"] as? String)
        #expect(receipt.inAppPurchases.count == inApp.count)
        for entry in inApp {
            let id = entry["transaction_id"] as! String
            let ours = try #require(receipt.inAppPurchases.first { $0.transactionID == id })
            #expect(ours.productID == entry["product_id"] as? String)
            #expect(ours.originalTransactionID == entry["original_transaction_id"] as? String)
            #expect(ours.purchaseDate.map { String(Int64($0.timeIntervalSince1970 * 1000)) } == entry["purchase_date_ms"] as? String)
            #expect(ours.expiresDate.map { String(Int64($0.timeIntervalSince1970 * 1000)) } == entry["expires_date_ms"] as? String)
            #expect(ours.webOrderLineItemID.map(String.init) == entry["web_order_line_item_id"] as? String)
            #expect(ours.isTrialPeriod.map { String($0) } == entry["is_trial_period"] as? String)
        }
    }

    @Test func manyThreadsVerifyTheCorpusAtOnce() async throws {
        let verifier = ReceiptVerifier()
        let inputs = try Self.cases.filter { !$0.name.hasPrefix("xcode-") }.map { try $0.bytes() }
        let serial = try inputs.map { try verifier.verifyAndDecode($0) }
        let concurrent = try await withThrowingTaskGroup(of: [VerifiedReceipt].self) { group in
            for _ in 0..<8 {
                group.addTask { try inputs.map { try verifier.verifyAndDecode($0) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(concurrent.count == 8)
        for run in concurrent { #expect(run == serial) }
    }
}

// MARK: - Comparing with the expected JSON


/// Compares one attribute with its expected entry: type, version, raw bytes and, for named
/// attributes, the typed value (dates through Foundation's parser, an independent oracle).
private func compare(_ attribute: ReceiptAttribute, _ expected: [String: Any],
                     named: (Int) -> Any??) throws {
    #expect(attribute.type == expected["type"] as! Int)
    #expect(attribute.version == expected["version"] as! Int)
    let value = expected["value"] as! [String: Any]
    #expect(attribute.value.hex == value["raw_hex"] as! String, "attribute \(attribute.type)")
    guard let typed = named(attribute.type) else { return }  // not a named attribute
    switch typed {
    case let date as Date?:
        let text = value["value"] as! String
        #expect(date == (text.isEmpty ? nil : ISO8601DateFormatter().date(from: text) ?? isoFractional(text)), "attribute \(attribute.type) \(text)")
    case let number as Int64?:
        #expect(number == (value["value"] as? Int).map(Int64.init), "attribute \(attribute.type)")
    case let flag as Bool?:
        #expect(flag == (value["value"] as? Int).map { $0 != 0 }, "attribute \(attribute.type)")
    case let text as String?:
        #expect(text == value["value"] as? String, "attribute \(attribute.type)")
    case let bytes as ByteString?:
        #expect(bytes?.hex == value["raw_hex"] as? String)
    default:
        Issue.record("unexpected typed value for \(attribute.type)")
    }
}

private func isoFractional(_ text: String) -> Date? {
    let parser = ISO8601DateFormatter()
    parser.formatOptions.insert(.withFractionalSeconds)
    return parser.date(from: text)
}

/// The typed value the decoder gave a named attribute; nil (outer) for unnamed types.
private func namedValue(of receipt: Receipt, type: Int) -> Any?? {
    switch type {
    case 0: return .some(receipt.receiptType as Any?)
    case 1: return .some(receipt.appItemID as Any?)
    case 2: return .some(receipt.bundleID as Any?)
    case 3: return .some(receipt.applicationVersion as Any?)
    case 4: return .some(receipt.opaqueValue as Any?)
    case 5: return .some(receipt.sha1Hash as Any?)
    case 10: return .some(receipt.ageRating as Any?)
    case 12: return .some(receipt.creationDate as Any?)
    case 15: return .some(receipt.downloadID as Any?)
    case 16: return .some(receipt.versionExternalIdentifier as Any?)
    case 18: return .some(receipt.originalPurchaseDate as Any?)
    case 19: return .some(receipt.originalApplicationVersion as Any?)
    case 21: return .some(receipt.expirationDate as Any?)
    default: return nil
    }
}

private func namedValue(of purchase: InAppPurchase, type: Int) -> Any?? {
    switch type {
    case 1701: return .some(purchase.quantity as Any?)
    case 1702: return .some(purchase.productID as Any?)
    case 1703: return .some(purchase.transactionID as Any?)
    case 1704: return .some(purchase.purchaseDate as Any?)
    case 1705: return .some(purchase.originalTransactionID as Any?)
    case 1706: return .some(purchase.originalPurchaseDate as Any?)
    case 1707: return .some(purchase.productType as Any?)
    case 1708: return .some(purchase.expiresDate as Any?)
    case 1711: return .some(purchase.webOrderLineItemID as Any?)
    case 1712: return .some(purchase.cancellationDate as Any?)
    case 1713: return .some(purchase.isTrialPeriod as Any?)
    case 1719: return .some(purchase.isInIntroOfferPeriod as Any?)
    case 1721: return .some(purchase.promotionalOfferID as Any?)
    default: return nil
    }
}

extension Array where Element == UInt8 {
    var hexString: String { ByteString(self).hex }
}
