import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// One rule places a genuine receipt's environment: the `environment` field and the 0 / 21003 /
/// 21007 / 21008 status come from `VerifyReceiptResponse.environmentCheck`, in the library, in
/// receipt-dump (ReceiptDumpTests' ReceiptDumpEnvironmentTests) and (in the server package's
/// tests) in receipt-server.
struct EnvironmentTests {
    /// Every receipt type worth telling apart: Apple's five, none, and look-alikes.
    static let receiptTypes: [String?] = [
        "Production", "ProductionVPP", "ProductionSandbox", "ProductionVPPSandbox", "Xcode", nil,
        "Sandbox", "production", "PRODUCTION", "Production ", "Xcod\u{E9}", "ProductionSandbox\u{0}",
    ]

    static let verification: VerificationReport = {
        try! testRootVerifier().verifyAndDecode(fixture("sample.receipt")).verification
    }()

    @Test(arguments: receiptTypes)
    func everyReceiptTypeUnderEveryExpectation(_ receiptType: String?) throws {
        let receipt = try ReceiptPayloadDecoder.decode(TestReceipt.payload(receiptType: receiptType))
        #expect(receipt.receiptType.map(ExactIdentifier.init) == receiptType.map(ExactIdentifier.init))
        for expected in [nil, Environment.production, .sandbox] {
            let (status, field) = Expected.environmentAnswer(receiptType, expecting: expected)
            let check = VerifyReceiptResponse.environmentCheck(receipt.environment, expecting: expected)
            #expect(check.status.rawValue == status, "\(String(describing: receiptType)) expecting \(String(describing: expected))")
            #expect(check.environmentField == field, "\(String(describing: receiptType)) expecting \(String(describing: expected))")
            // The whole answer carries the same status and field.
            let answer = try StrictJSON.parse(Array(VerifyReceiptResponse.text(
                for: .success(VerifiedReceipt(receipt: receipt, verification: Self.verification)), expecting: expected).utf8))
            #expect(answer["status"] == .number(String(status)))
            #expect(answer["environment"] == field.map(StrictJSON.Value.string))
            #expect((answer["receipt"] != nil) == (status == 0))
        }
    }

    @Test func anExpectationOfXcodeOrUnknownAcceptsNothingElse() {
        for environment in Environment.allCases {
            #expect((VerifyReceiptResponse.environmentCheck(environment, expecting: .xcode).status == .valid) == (environment == .xcode))
            #expect(VerifyReceiptResponse.environmentCheck(environment, expecting: .unknown).status != .valid)
        }
    }
}
