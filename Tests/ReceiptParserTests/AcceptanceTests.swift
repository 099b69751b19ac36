import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// One acceptance rule for receipts and tokens (``AcceptanceExpectations``), the agreement of the
/// tokens of one body (``BodyAgreement``), and the rule for "unreadable" against "not verified",
/// with their exact codes and wording.
struct AcceptanceTests {
    static func token(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("jws/\(name)")))
    }

    static func tokenVerifier(_ expectations: AcceptanceExpectations = AcceptanceExpectations()) throws -> SignedDataVerifier {
        SignedDataVerifier(anchor: try .appStore(rootCertificate: pki("jws-root.der")), expectations: expectations)
    }

    static func receipt(_ bytes: [UInt8]) throws -> Receipt {
        try testRootVerifier().verifyAndDecode(bytes).receipt
    }

    static func details(_ checks: [AcceptanceCheck]) -> [String] {
        checks.map { "\($0.name) \($0.outcome.rawValue): \($0.detail)" }
    }

    // MARK: One rule, receipts and tokens

    @Test func aReceiptIsJudgedByTheSameChecksAsAToken() throws {
        let sample = AcceptanceSubject(try Self.receipt(fixture("sample.receipt")))  // ProductionSandbox, app item id 0
        let expectations = AcceptanceExpectations(bundleIDs: ["com.example.other", "com.example.receiptparser.sample"],
                                                  environment: .production, appAppleID: 1234)
        #expect(Self.details(expectations.checks(of: sample)) == [
            "bundle-id passed: expected one of com.example.other, com.example.receiptparser.sample, the data has \"com.example.receiptparser.sample\"",
            "environment failed: expected Production, the data has \"ProductionSandbox\"",
            "app-apple-id not applicable: expected 1234; not production data, which need not carry it",
        ])
        let refusal = try #require(expectations.refusal(of: sample))
        #expect(refusal.code == .environmentMismatch)
        #expect(refusal.reason == "environment: expected Production, the data has \"ProductionSandbox\"")

        // A production receipt is held to the App Apple ID (its app item id), as a token is.
        let production = AcceptanceSubject(try Self.receipt(hostileFixture("receipt-type-production.receipt")))
        let held = try #require(AcceptanceExpectations(appAppleID: 1234).refusal(of: production))
        #expect(held.code == .appIdentityMismatch)
        #expect(held.reason == "app-apple-id: expected 1234, the data has 0")
        #expect(AcceptanceExpectations(bundleIDs: ["com.example.receiptparser.sample"], environment: .production)
            .refusal(of: production) == nil)
    }

    @Test func aTokenIsJudgedByTheSameChecksAsAReceipt() throws {
        let verifier = try Self.tokenVerifier()
        let transaction = AcceptanceSubject(SignedPayload.transaction(try verifier.verifyTransaction(Self.token("transaction.jws"))))
        let expectations = AcceptanceExpectations(bundleIDs: ["com.example.other"], environment: .production, appAppleID: 1234)
        #expect(Self.details(expectations.checks(of: transaction)) == [
            "bundle-id failed: expected com.example.other, the data has \"com.example.receiptparser.sample\"",
            "environment failed: expected Production, the data has \"Sandbox\"",
            "app-apple-id not applicable: expected 1234; this kind of data has none",
        ])
        // The library's verifier applies the same function, and refuses with its first failure.
        let refused = try Self.tokenVerifier(expectations).inspect(Self.token("transaction.jws"))
        #expect(refused.verdict == .notAccepted)
        #expect(refused.failure?.code == .appIdentityMismatch)
        #expect(refused.failure?.reason == "bundle-id: expected com.example.other, the data has \"com.example.receiptparser.sample\"")
        #expect(Self.details(refused.checks) == Self.details(expectations.checks(of: transaction)))

        // Several bundle ids: a server of two apps accepts either, in the library itself.
        let two = try Self.tokenVerifier(AcceptanceExpectations(bundleIDs: ["com.example.other", "com.example.receiptparser.sample"]))
        #expect(two.inspect(try Self.token("transaction.jws")).verdict == .verified)
    }

    @Test func theSandboxAcceptsXcodeForReceiptsAndTokensAlike() throws {
        let xcodeReceipt = AcceptanceSubject(try Self.receipt(hostileFixture("receipt-type-xcode.receipt")))
        let storeKit = SignedDataVerifier(anchor: try .storeKitTesting(certificate: pki("jws-storekit.der")))
        let xcodeToken = AcceptanceSubject(SignedPayload.transaction(try storeKit.verifyTransaction(Self.token("xcode-transaction.jws"))))
        for subject in [xcodeReceipt, xcodeToken] {
            #expect(AcceptanceExpectations(environment: .sandbox).refusal(of: subject) == nil)
            #expect(AcceptanceExpectations(environment: .xcode).refusal(of: subject) == nil)
            #expect(AcceptanceExpectations(environment: .production).refusal(of: subject)?.code == .environmentMismatch)
        }
        #expect(VerifyReceiptResponse.environmentCheck(.xcode, expecting: .sandbox).status == .valid)
    }

    @Test func aLookAlikeBundleIDIsShownByItsBytes() throws {
        let receipt = AcceptanceSubject(try Self.receipt(hostileFixture("decomposed-bundle-id.receipt")))
        let precomposed = "com.example.caf\u{E9}"
        let check = try #require(AcceptanceExpectations(bundleIDs: [ExactIdentifier(precomposed)]).checks(of: receipt).first)
        #expect(check.outcome == .failed)
        #expect(check.detail.hasSuffix("(same text, other bytes: expected UTF-8 636f6d2e6578616d706c652e636166c3a9, the data has 636f6d2e6578616d706c652e63616665cc81)"))
    }

    // MARK: The tokens of one body

    @Test func theTokensOfOneBodyAgree() throws {
        let verifier = try Self.tokenVerifier()
        func refusal(_ file: String) throws -> (member: String?, verdict: Verdict, code: ReceiptError.Code?, reason: String?) {
            let inspections = verifier.inspectAll(try Self.token(file))
            let failed = try #require(inspections.first { $0.failure != nil }, "\(file)")
            return (failed.member, failed.verdict, failed.failure?.code, failed.failure?.reason)
        }
        let environment = try refusal("body-status-environment-mismatch.json")
        #expect(environment.member == "signedRenewalInfo" && environment.verdict == .notVerified && environment.code == .environmentMismatch)
        #expect(environment.reason == "its environment \"Production\" is not signedTransactionInfo's \"Sandbox\"")

        let bundle = try refusal("body-history-bundle-id-mismatch.json")
        #expect(bundle.member == "signedTransactions[1]" && bundle.verdict == .notVerified && bundle.code == .appIdentityMismatch)
        #expect(bundle.reason == "its bundle id \"com.example.other\" is not signedTransactions[0]'s \"com.example.receiptparser.sample\"")

        let renewal = try refusal("body-status-renewal-of-another.json")
        #expect(renewal.member == "signedRenewalInfo" && renewal.verdict == .notVerified && renewal.code == .appIdentityMismatch)
        #expect(renewal.reason == "its originalTransactionId \"2000000000000999\" is not that of a transaction in the body")

        // Bodies whose tokens agree stay verified, each token alone included.
        for file in ["body-subscription-status.json", "body-transaction-history.json", "body-signed-payload.json"] {
            #expect(verifier.inspectAll(try Self.token(file)).allSatisfy { $0.verdict == .verified }, "\(file)")
        }
        #expect(verifier.inspect(try Self.token("renewal-info.jws")).verdict == .verified)
    }

    @Test func aNotificationsNestedTokensFollowTheSameRule() throws {
        let inspection = try Self.tokenVerifier().inspect(Self.token("nested-environment-mismatch.jws"))
        #expect(inspection.verdict == .notVerified)
        #expect(inspection.failure?.code == .environmentMismatch)
        let nested = try #require(inspection.nested.first { $0.failure != nil })
        #expect(nested.failure?.reason.hasPrefix("its environment ") == true)
        #expect(nested.failure?.reason.contains(" is not the notification's ") == true)
        #expect(inspection.failure?.reason == "\(nested.member ?? ""): \(nested.failure?.reason ?? "")")
    }

    // MARK: Unreadable or not verified

    @Test func trustFailuresAreAPropertyOfTheCode() {
        #expect(ReceiptError.Code.signatureInvalid.isTrustFailure)
        #expect(ReceiptError.Code.tooManyCertificates.isTrustFailure)
        #expect(ReceiptError.Code.environmentMismatch.isTrustFailure)
        #expect(!ReceiptError.Code.wrongValueType.isTrustFailure)
        #expect(!ReceiptError.Code.malformedToken.isTrustFailure)
        #expect(!ReceiptError.Code.invalidDate.isTrustFailure)
        #expect(VerifyReceiptResponse.Status(ReceiptError(.signatureInvalid, "")) == .notAuthenticated)
        #expect(VerifyReceiptResponse.Status(ReceiptError(.wrongValueType, "")) == .malformed)
        #expect(Verdict(failure: ReceiptError(.untrustedChain, "")) == .notVerified)
        #expect(Verdict(failure: ReceiptError(.invalidDate, "")) == .unreadable)
    }

    @Test func aGenuineReceiptWithABadPayloadIsUnreadableAForgedOneNotVerified() throws {
        let bytes = try fixture("bad-purchase-date.receipt")
        let showing = InspectionOptions(decodesUnverified: true)
        let genuine = try testRootVerifier().inspect(bytes, options: showing)
        #expect(genuine.verdict == .unreadable)
        #expect(genuine.failure?.code == .invalidDate)

        // The same bytes under another root: not verified, although its payload was read (and failed).
        let forged = ReceiptVerifier(anchor: try .appStore(rootCertificate: pki("other-root.der"))).inspect(bytes, options: showing)
        #expect(forged.readError?.code == .invalidDate)
        #expect(forged.verdict == .notVerified)
        #expect(forged.failure?.code == .untrustedChain)
        #expect(Verdict(readable: false, verified: false) == .notVerified)
    }

    @Test func aGenuineTokenWithABadPayloadIsUnreadableAForgedOneNotVerified() throws {
        let verifier = try Self.tokenVerifier()
        let showing = InspectionOptions(decodesUnverified: true)
        let bytes = try Self.token("type-bundle-id-number.jws")
        let genuine = verifier.inspect(bytes, options: showing)
        #expect(genuine.verdict == .unreadable)
        #expect(genuine.failure?.code == .wrongValueType)

        // One signature bit flipped: the payload is as malformed, and the token is not verified.
        var characters = Array(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        let inSignature = try #require(characters.lastIndex(of: ".")) + 10
        characters[inSignature] = characters[inSignature] == "A" ? "B" : "A"
        let text = String(characters)
        for options in [showing, InspectionOptions.verifiedOnly] {
            let forged = verifier.inspect(Array(text.utf8), options: options)
            #expect(forged.verdict == .notVerified)
            #expect(forged.failure?.code == .signatureInvalid)
            #expect(forged.decoded == nil)
        }
        #expect(verifier.inspect(Array(text.utf8), options: showing).readError?.code == .wrongValueType)
        #expect(verifier.inspect(Array(text.utf8), options: .verifiedOnly).readError == nil)  // never read
    }
}
