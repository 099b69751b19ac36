import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// Every case of TestReceipts/jws/tokens.json (the JWS test PKI's valid and hostile tokens and
/// bodies, made and independently checked by TestReceipts/generate.py) through receipt-dump, as
/// support staff run it, and through the library: the exit status and the error code the
/// manifest records (or one of the other defects a multi-defect token also has).
struct SignedDataFixtureTests {
    typealias Case = FixtureManifest.TokenCase

    static let cases = FixtureManifest.tokenCases

    /// receipt-dump's arguments for a case: the test root unless the case names another anchor.
    static func arguments(_ item: Case) -> [String] { ["--format", "summary"] + item.arguments + ["jws/\(item.file)"] }

    @Test func theManifestCoversEveryRule() {
        #expect(Self.cases.count >= 200)
        let codes = Set(Self.cases.flatMap(\.errors))
        for code in ["malformedToken", "invalidJSON", "duplicateKey", "tooLarge", "wrongValueType", "unsupportedSignatureAlgorithm",
                     "unsupportedCriticalHeader", "untrustedChain", "invalidCertificate", "missingAppleExtension", "keyNotAllowed",
                     "certificateNotValidAtTime", "missingSignedDate", "signatureInvalid", "wrongKind", "appIdentityMismatch",
                     "environmentMismatch"] {
            #expect(codes.contains(code), "no case for \(code)")
        }
    }

    @Test(arguments: cases.filter { $0.options["as_kind"] == nil })
    func receiptDumpGivesTheRecordedOutcome(_ item: Case) throws {
        let run = try ReceiptDumpTests().run(Self.arguments(item))
        #expect(run.status == item.exitStatus, "\(run.output)")
        if item.errors.isEmpty {
            #expect(run.output.contains("\tverified\t"), "\(run.output)")
        } else {
            #expect(item.errors.contains { run.output.contains("(\($0))") }, "expected \(item.errors): \(run.output)")
        }
    }

    /// A body whose genuine tokens disagree is not verified, with the library's wording, which
    /// receipt-server answers with too (AcceptanceTests checks the library's own inspections).
    @Test(arguments: [
        ("body-status-environment-mismatch.json", "environmentMismatch",
         "signedRenewalInfo: its environment \"Production\" is not signedTransactionInfo's \"Sandbox\""),
        ("body-history-bundle-id-mismatch.json", "appIdentityMismatch",
         "signedTransactions[1]: its bundle id \"com.example.other\" is not signedTransactions[0]'s \"com.example.receiptparser.sample\""),
        ("body-status-renewal-of-another.json", "appIdentityMismatch",
         "signedRenewalInfo: its originalTransactionId \"2000000000000999\" is not that of a transaction in the body"),
    ])
    func receiptDumpRefusesABodyWhoseTokensDisagree(_ file: String, _ code: String, _ reason: String) throws {
        let run = try ReceiptDumpTests().run("--root", "pki/jws-root.der", "--format", "json", "--json-layout", "compact", "jws/\(file)")
        #expect(run.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "not verified")
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == code)
        #expect(error["reason"] as? String == reason)
    }

    /// One rule for receipts and tokens: genuine data whose payload cannot be read is unreadable
    /// (exit 2); the same data under a root it does not chain to is not verified (exit 1), its
    /// payload's defect shown by nothing but the data.
    @Test(arguments: [("receipts/bad-purchase-date.receipt", "pki/test-root.der", "invalidDate"),
                      ("jws/type-bundle-id-number.jws", "pki/jws-root.der", "wrongValueType")])
    func unreadableOrNotVerifiedIsOneRule(_ file: String, _ root: String, _ code: String) throws {
        let genuine = try ReceiptDumpTests().run("--root", root, "--format", "summary", file)
        #expect(genuine.status == 2)
        #expect(genuine.output.hasPrefix("\(file)\tunreadable (\(code))\t"), "\(genuine.output)")
        let forged = try ReceiptDumpTests().run("--root", "pki/other-root.der", "--format", "summary", file)
        #expect(forged.status == 1)
        #expect(forged.output.hasPrefix("\(file)\tnot verified (untrustedChain)\t"), "\(forged.output)")
    }

    /// The kind a caller asks for (receipt-dump has no option for it; a body's member says it).
    @Test(arguments: cases.filter { $0.options["as_kind"] != nil })
    func theLibraryRefusesAnotherKind(_ item: Case) throws {
        let root = [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("pki/jws-root.der")))
        let verifier = SignedDataVerifier(anchor: try .appStore(rootCertificate: root))
        let kind = try #require(SignedDataKind(rawValue: item.options["as_kind"]!))
        let token = [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("jws/\(item.file)")))
        let inspection = verifier.inspect(token, expecting: kind)
        if item.errors.isEmpty {
            #expect(inspection.verdict == .verified, "\(inspection.failure?.description ?? "")")
        } else {
            #expect(item.errors.contains(inspection.failure?.code.name ?? "none"), "\(inspection.failure?.description ?? "verified")")
            #expect(item.exitStatus == (inspection.verdict == .unreadable ? 2 : 1))
        }
    }
}
