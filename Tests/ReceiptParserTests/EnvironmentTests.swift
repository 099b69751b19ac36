import Foundation
import Testing
@testable import ReceiptParser

/// One rule places a genuine receipt's environment: the `environment` field and the 0 / 21003 /
/// 21007 / 21008 status come from `VerifyReceiptResponse.environmentCheck`, in the library, in
/// receipt-dump and (in the server package's tests) in receipt-server.
struct EnvironmentTests {
    /// Every receipt type worth telling apart: Apple's five, none, and look-alikes.
    static let receiptTypes: [String?] = [
        "Production", "ProductionVPP", "ProductionSandbox", "ProductionVPPSandbox", "Xcode", nil,
        "Sandbox", "production", "PRODUCTION", "Production ", "Xcod\u{E9}", "ProductionSandbox\u{0}",
    ]

    /// The expected answer: status, and the environment field when the status is 0.
    static func expectedAnswer(_ receiptType: String?, expecting expected: Environment?) -> (Int64, String?) {
        let placed: Environment = switch receiptType {
        case "Production"?, "ProductionVPP"?: .production
        case "ProductionSandbox"?, "ProductionVPPSandbox"?: .sandbox
        case "Xcode"?: .xcode
        default: .unknown
        }
        switch (expected, placed) {
        case (nil, .production): return (0, "Production")
        case (nil, .sandbox): return (0, "Sandbox")
        case (nil, .xcode): return (0, "Xcode")
        case (nil, .unknown): return (0, "Unknown")
        case (.production?, .production): return (0, "Production")
        case (.production?, .sandbox), (.production?, .xcode): return (21007, nil)
        case (.sandbox?, .sandbox): return (0, "Sandbox")
        case (.sandbox?, .xcode): return (0, "Xcode")
        case (.sandbox?, .production): return (21008, nil)
        case (_, .unknown): return (21003, nil)
        default: Issue.record("no expectation for \(String(describing: expected))"); return (-1, nil)
        }
    }

    static let verification: VerificationReport = {
        try! testRootVerifier().verifyAndDecode(fixture("sample.receipt")).verification
    }()

    @Test(arguments: receiptTypes)
    func everyReceiptTypeUnderEveryExpectation(_ receiptType: String?) throws {
        let receipt = try ReceiptPayloadDecoder.decode(TestReceipt.payload(receiptType: receiptType))
        #expect(receipt.receiptType.map(ExactIdentifier.init) == receiptType.map(ExactIdentifier.init))
        for expected in [nil, Environment.production, .sandbox] {
            let (status, field) = Self.expectedAnswer(receiptType, expecting: expected)
            let check = VerifyReceiptResponse.environmentCheck(receipt.environment, expecting: expected)
            #expect(check.status.rawValue == status, "\(String(describing: receiptType)) expecting \(String(describing: expected))")
            #expect(check.environmentField == field, "\(String(describing: receiptType)) expecting \(String(describing: expected))")
            // The whole answer carries the same status and field.
            let answer = VerifyReceiptResponse.make(for: .success(VerifiedReceipt(receipt: receipt, verification: Self.verification)),
                                                    expecting: expected)
            guard case .object(let members) = answer else { Issue.record("not an object"); continue }
            #expect(members.first { $0.0 == "status" }?.1 == .number(status))
            #expect(members.first { $0.0 == "environment" }?.1 == field.map(JSONValue.string))
            #expect(members.contains { $0.0 == "receipt" } == (status == 0))
        }
    }

    @Test func anExpectationOfXcodeOrUnknownAcceptsNothingElse() {
        for environment in Environment.allCases {
            #expect((VerifyReceiptResponse.environmentCheck(environment, expecting: .xcode).status == .valid) == (environment == .xcode))
            #expect(VerifyReceiptResponse.environmentCheck(environment, expecting: .unknown).status != .valid)
        }
    }

    // MARK: receipt-dump

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

    /// The fixtures whose receipt type TestReceipts/fixtures.json records and that verify under
    /// App Store rules (hostile/receipt-type-*, the sample): file and the type they carry.
    static func receiptTypeFixtures() throws -> [(file: String, type: String?)] {
        let manifest = try FixtureManifest.load()
        return manifest.fixtures.compactMap { fixture in
            guard fixture.verdicts[FixtureManifest.appStore] == manifest.verified, let value = fixture.receipt?["receiptType"] else { return nil }
            guard case .text(let type) = value else { return (fixture.file, nil) }
            return (fixture.file, type)
        }
    }

    @Test func receiptDumpPlacesEveryGeneratedReceiptTypeUnderEveryExpectation() throws {
        let fixtures = try Self.receiptTypeFixtures()
        #expect(fixtures.count >= 8)
        for (file, receiptType) in fixtures {
            for expected in [nil, Environment.production, .sandbox] {
                let result = try tool.run(["--format", "verifyreceipt", "--root", "pki/test-root.der"]
                                          + (expected.map { ["--environment", $0.rawValue] } ?? []) + [file])
                let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
                let (status, field) = Self.expectedAnswer(receiptType, expecting: expected)
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
