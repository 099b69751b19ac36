import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// One pass of the pipeline keeps every outcome: what receipt-dump, the server's page and
/// `/v1/receipts` build on.
struct InspectionTests {
    @Test func aGenuineReceiptIsVerifiedDecodedAndSummarized() throws {
        let inspection = try testRootVerifier().inspect(fixture("sample.receipt"))
        #expect(inspection.verdict == .verified)
        #expect(inspection.failure == nil)
        #expect(inspection.receipt?.bundleID == "com.example.receiptparser.sample")
        #expect(inspection.certificates.count == 3)
        let verified = try inspection.verified()
        #expect(verified == (try testRootVerifier().verifyAndDecode(fixture("sample.receipt"))))
    }

    @Test func aForgedReceiptIsDecodedOnlyWhenAskedFor() throws {
        let forged = try fixture("tampered-payload.receipt")
        let shown = try testRootVerifier().inspect(forged, options: .everything)
        #expect(shown.verdict == .notVerified)
        #expect(shown.failure?.code == .signatureInvalid)
        #expect(shown.receipt != nil)  // what the forgery claims, for a person to see
        // By default, and for servers, a forgery costs no decoding and claims nothing.
        let byDefault = try testRootVerifier().inspect(forged)
        #expect(byDefault.receipt == nil)
        #expect(byDefault.certificates.count == 3)
        let strict = try testRootVerifier().inspect(forged, options: .verifiedOnly)
        #expect(strict.verdict == .notVerified)
        #expect(strict.receipt == nil)
        #expect(strict.certificates.isEmpty)
        #expect(errorCode { try strict.verified() } == .signatureInvalid)
    }

    @Test func verifiedThrowsWhatVerifyAndDecodeThrows() throws {
        // Not genuine under this root, and its payload cannot be read either: the verification's
        // failure comes first, whatever the inspection decoded.
        let otherRoot = ReceiptVerifier(anchor: try .appStore(rootCertificate: pki("other-root.der")))
        let bytes = try fixture("bad-purchase-date.receipt")
        let shown = otherRoot.inspect(bytes, options: .everything)
        #expect(shown.verdict == .notVerified)  // nothing in it is believed, its defects included
        #expect(shown.readError?.code == .invalidDate)
        #expect(errorCode { try shown.verified() } == .untrustedChain)
        #expect(errorCode { try otherRoot.verifyAndDecode(bytes) } == .untrustedChain)
    }

    @Test func unreadableInputHasNoEnvelope() throws {
        let inspection = try testRootVerifier().inspect(fixture("not-pkcs7.bin"))
        #expect(inspection.verdict == .unreadable)
        #expect(inspection.container == nil)
        #expect(inspection.verification == nil)
        #expect(errorCode { try inspection.verified() } == inspection.readError?.code)
    }

    @Test func withoutAVerifierNothingIsChecked() throws {
        let inspection = ReceiptInspection.inspect(try fixture("tampered-payload.receipt"), verifier: nil, options: .everything)
        #expect(inspection.verdict == .notChecked)
        #expect(inspection.receipt != nil)
        #expect(inspection.failure == nil)
    }

    @Test func anEnvelopeRefusedForTrustReasonsIsNotVerifiedOnlyWhenVerifying() throws {
        let bomb = try hostileFixture("certificate-bomb.receipt")
        let verifying = try testRootVerifier().inspect(bomb, options: .everything)
        #expect(verifying.verdict == .notVerified)
        #expect(verifying.failure?.code == .tooManyCertificates)
        let reading = ReceiptInspection.inspect(bomb, verifier: nil)
        #expect(reading.verdict == .unreadable)
        #expect(reading.readError?.code == .tooManyCertificates)
    }

    @Test func aPayloadThatCannotBeDecodedKeepsItsVerification() throws {
        let inspection = try testRootVerifier().inspect(fixture("bad-purchase-date.receipt"), options: .everything)
        #expect(inspection.verdict == .unreadable)
        #expect(inspection.readError?.code == .invalidDate)
        #expect(inspection.verification.map { (try? $0.get()) != nil } == true)
    }

    /// Counting the in-app purchases instead of keeping them (receipt-dump's summary) reads and
    /// checks every entry the same way: the same receipt cases fail, with the same errors.
    @Test(arguments: FixtureManifest.receiptCases)
    func countingInAppPurchasesRefusesWhatKeepingThemRefuses(_ fixture: FixtureCase) throws {
        let bytes = try fixture.bytes()
        let verifier = try fixture.options.verifier()
        let kept = verifier.inspect(bytes, options: .everything)
        var options = InspectionOptions.everything
        options.keepsInAppPurchases = false
        let counted = verifier.inspect(bytes, options: options)
        #expect(counted.verdict == kept.verdict, "\(fixture)")
        #expect(counted.readError?.code == kept.readError?.code, "\(fixture)")
        #expect(counted.readError?.reason == kept.readError?.reason, "\(fixture)")
        #expect(counted.failure?.reason == kept.failure?.reason, "\(fixture)")
        #expect(counted.inAppPurchaseCount == kept.inAppPurchaseCount, "\(fixture)")
        #expect(counted.inAppPurchaseCount == kept.receipt?.inAppPurchases.count ?? 0, "\(fixture)")
        #expect(counted.receipt?.inAppPurchases.isEmpty ?? true, "\(fixture)")
        var withoutPurchases = kept.receipt
        withoutPurchases?.inAppPurchases = []
        #expect(counted.receipt == withoutPurchases, "\(fixture)")
    }

    @Test func verdictsOfFailuresFollowTheirVerifyReceiptStatus() {
        #expect(Verdict(failure: ReceiptError(.signatureInvalid, "")) == .notVerified)
        #expect(Verdict(failure: ReceiptError(.untrustedChain, "")) == .notVerified)
        #expect(Verdict(failure: ReceiptError(.notBase64, "")) == .unreadable)
        #expect(Verdict(failure: ReceiptError(.truncated, "")) == .unreadable)
        #expect(Verdict(readable: false, verified: true) == .unreadable)
        #expect(Verdict(readable: true, verified: nil) == .notChecked)
        #expect(Verdict(readable: true, verified: false) == .notVerified)
        #expect(Verdict(readable: true, verified: true) == .verified)
    }
}
