import Foundation
import Testing
@testable import ReceiptParser

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

    @Test func aForgedReceiptIsDecodedForSupportStaffButNotForServers() throws {
        let forged = try fixture("tampered-payload.receipt")
        let shown = try testRootVerifier().inspect(forged)
        #expect(shown.verdict == .notVerified)
        #expect(shown.failure?.code == .signatureInvalid)
        #expect(shown.receipt != nil)  // what the forgery claims, for a person to see
        let strict = try testRootVerifier().inspect(forged, options: .verifiedOnly)
        #expect(strict.verdict == .notVerified)
        #expect(strict.receipt == nil)  // a server pays no decoding for a forgery
        #expect(strict.certificates.isEmpty)
        #expect(errorCode { try strict.verified() } == .signatureInvalid)
    }

    @Test func unreadableInputHasNoEnvelope() throws {
        let inspection = try testRootVerifier().inspect(fixture("not-pkcs7.bin"))
        #expect(inspection.verdict == .unreadable)
        #expect(inspection.container == nil)
        #expect(inspection.verification == nil)
        #expect(errorCode { try inspection.verified() } == inspection.readError?.code)
    }

    @Test func withoutAVerifierNothingIsChecked() throws {
        let inspection = ReceiptInspection.inspect(try fixture("tampered-payload.receipt"), verifier: nil)
        #expect(inspection.verdict == .notChecked)
        #expect(inspection.receipt != nil)
        #expect(inspection.failure == nil)
    }

    @Test func anEnvelopeRefusedForTrustReasonsIsNotVerifiedOnlyWhenVerifying() throws {
        let bomb = try hostileFixture("certificate-bomb.receipt")
        let verifying = try testRootVerifier().inspect(bomb)
        #expect(verifying.verdict == .notVerified)
        #expect(verifying.failure?.code == .tooManyCertificates)
        let reading = ReceiptInspection.inspect(bomb, verifier: nil)
        #expect(reading.verdict == .unreadable)
        #expect(reading.readError?.code == .tooManyCertificates)
    }

    @Test func aPayloadThatCannotBeDecodedKeepsItsVerification() throws {
        let inspection = try testRootVerifier().inspect(fixture("bad-purchase-date.receipt"))
        #expect(inspection.verdict == .unreadable)
        #expect(inspection.readError?.code == .invalidDate)
        #expect(inspection.verification.map { (try? $0.get()) != nil } == true)
    }

    @Test func verdictsOfFailuresFollowTheirVerifyReceiptStatus() {
        #expect(Verdict(failure: ReceiptError(.signatureInvalid, "")) == .notVerified)
        #expect(Verdict(failure: ReceiptError(.untrustedChain, "")) == .notVerified)
        #expect(Verdict(failure: ReceiptError(.notBase64, "")) == .unreadable)
        #expect(Verdict(failure: ReceiptError(.truncated, "")) == .unreadable)
    }
}
