import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// receipt-dump places a genuine receipt's environment by the library's one rule
/// (`VerifyReceiptResponse.environmentCheck`, whose answers ReceiptParserTests' EnvironmentTests
/// check): the `environment` field, the status and the exit status of `--format verifyreceipt`.
struct ReceiptDumpEnvironmentTests {
    let tool = ReceiptDumpTests()

    /// receipt-dump's verifyreceipt answer for a signed receipt of `receiptType`.
    func verifyReceiptAnswer(_ receiptType: String?, _ environment: String?) throws -> [String: Any] {
        let file = try TestReceipt.temporaryFile(TestReceipt.signed(TestReceipt.payload(receiptType: receiptType)))
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try tool.run(["--format", "verifyreceipt", "--root", "pki/test-root.der"]
                                  + (environment.map { ["--environment", $0] } ?? []) + [file.path])
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    @Test(.enabled(if: TestReceipt.openssl != nil, "needs the openssl command to sign test receipts"))
    func receiptDumpPlacesVolumePurchaseAndUntypedReceipts() throws {
        let vppSandbox = try verifyReceiptAnswer("ProductionVPPSandbox", "production")
        #expect(vppSandbox["status"] as? Int == 21007 && vppSandbox["environment"] == nil)
        #expect(try verifyReceiptAnswer("ProductionVPPSandbox", "sandbox")["environment"] as? String == "Sandbox")
        let untyped = try verifyReceiptAnswer(nil, "production")
        #expect(untyped["status"] as? Int == 21003 && untyped["environment"] == nil)
        #expect(try verifyReceiptAnswer(nil, "sandbox")["status"] as? Int == 21003)
        let unexpected = try verifyReceiptAnswer(nil, nil)
        #expect(unexpected["status"] as? Int == 0 && unexpected["environment"] as? String == "Unknown")
        #expect(try verifyReceiptAnswer("ProductionVPP", "sandbox")["status"] as? Int == 21008)
        #expect(try verifyReceiptAnswer("ProductionVPP", "production")["environment"] as? String == "Production")
        #expect(try verifyReceiptAnswer("production", "production")["status"] as? Int == 21003)
    }

    @Test func receiptDumpPlacesEveryGeneratedReceiptTypeUnderEveryExpectation() throws {
        let fixtures = try Expected.receiptTypeFixtures()
        #expect(fixtures.count >= 8)
        for (file, receiptType) in fixtures {
            for expected in [nil, Environment.production, .sandbox] {
                let result = try tool.run(["--format", "verifyreceipt", "--root", "pki/test-root.der"]
                                          + (expected.map { ["--environment", $0.rawValue] } ?? []) + [file])
                let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
                let (status, field) = Expected.environmentAnswer(receiptType, expecting: expected)
                let what = "\(file) expecting \(String(describing: expected))"
                #expect(answer["status"] as? Int64 == status, "\(what): \(answer["status"] ?? "-")")
                #expect(result.status == (status == 0 ? 0 : 1), "\(what): exit status \(result.status)")
                #expect(answer["environment"] as? String == field, "\(what)")
                #expect(((answer["receipt"] as? [String: Any])?["receipt_type"] as? String) == (status == 0 ? receiptType : nil), "\(what)")
            }
        }
    }

    @Test func receiptDumpPlacesStoreKitTestingReceipts() throws {
        func answer(_ environment: String) throws -> [String: Any] {
            let result = try tool.run("--format", "verifyreceipt", "--storekit-testing", "pki/storekit-test.der",
                                      "--environment", environment, "receipts/storekit.receipt")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }
        let sandbox = try answer("sandbox")
        #expect(sandbox["status"] as? Int == 0 && sandbox["environment"] as? String == "Xcode")
        let production = try answer("production")
        #expect(production["status"] as? Int == 21007 && production["environment"] == nil)
    }
}
