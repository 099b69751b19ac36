import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The real Apple-signed StoreKit 2 tokens of ../shared/corpus/jws against their independent
/// ground truth (Python `cryptography`, `openssl verify -x509_strict`, Apple's own library).
/// Skipped, visibly, when ../shared is not beside the repository.
@Suite(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
struct SignedDataCorpusTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let folder: String
        let name: String
        var testDescription: String { folder.isEmpty ? name : "\(folder)/\(name)" }
        var root: URL { Paths.corpus.appendingPathComponent(folder.isEmpty ? "jws" : "jws/\(folder)") }
        func token() throws -> [UInt8] { [UInt8](try Data(contentsOf: root.appendingPathComponent("tokens/\(name).jws"))) }
        func expected() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("expected/\(name).json"))) as! [String: Any]
        }
        /// The file name's kind, in this library's words.
        var kind: SignedDataKind {
            let word = name.split(separator: "-")[1]
            switch word {
            case "transaction": return .transaction
            case "renewal": return .renewalInfo
            case "apptransaction": return .appTransaction
            default: return .notification
            }
        }
    }

    static func cases(_ folder: String) -> [Case] {
        let tokens = Case(folder: folder, name: "").root.appendingPathComponent("tokens")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: tokens.path)) ?? []
        return names.filter { $0.hasSuffix(".jws") }.sorted().map { Case(folder: folder, name: String($0.dropLast(4))) }
    }

    static let apple = cases("")
    static let xcode = cases("xcode")
    static let testCA = cases("testca")
    static let verifier = SignedDataVerifier()

    static func milliseconds(_ date: Date) -> Double { (date.timeIntervalSince1970 * 1000).rounded() }

    /// A verifier that judges at a day into the token's leaf's validity: for tokens without a date.
    static func verifierInsideLeafValidity(_ expected: [String: Any]) throws -> SignedDataVerifier {
        let leaf = (expected["certificates"] as! [[String: Any]])[0]
        let notBefore = try #require(ISO8601DateFormatter().date(from: leaf["not_before"] as! String))
        return SignedDataVerifier(policy: VerificationPolicy(validationTime: .instant(notBefore.addingTimeInterval(86_400))))
    }

    @Test func corpusIsComplete() {
        #expect(Self.apple.count == 55)
        #expect(Self.xcode.count == 3)
        #expect(Self.testCA.count == 5)
    }

    /// Every Apple-signed token verifies at its own signed date exactly when the ground truth
    /// says so, is judged at that date, and is of the kind its file says.
    @Test(arguments: apple)
    func appleTokensVerifyAtTheirSignedDate(_ item: Case) throws {
        let expected = try item.expected()
        let time = expected["validation_time"] as! [String: Any]
        let verdict = (expected["verification"] as! [String: Any])["verdict_at_validation_time"] as! Bool
        var inspection = Self.verifier.inspect(try item.token(), expecting: item.kind)
        #expect(inspection.kind == item.kind)
        #expect(inspection.readError == nil)
        if time["present"] as! Bool {
            #expect(verdict)
            let report = try #require(try inspection.verification?.get(), "\(inspection.failure?.description ?? "")")
            #expect(Self.milliseconds(report.validationTime) == (time["ms"] as! NSNumber).doubleValue)
            #expect(report.chain.count == 3)
            #expect(report.chain.last?.sha256 == TrustAnchor.appleRootCAG3SHA256)
            let certificates = expected["certificates"] as! [[String: Any]]
            #expect(report.chain.map(\.sha256) == certificates.map { $0["sha256"] as! String })
            #expect(inspection.verdict == .verified)
        } else {
            // No date to judge at: not verified, and said so; verified at an instant given.
            #expect(inspection.failure?.code == .missingSignedDate)
            #expect(inspection.verdict == .notVerified)
            inspection = try Self.verifierInsideLeafValidity(expected).inspect(try item.token())
            #expect(inspection.verdict == .verified)
        }
        // The payload is kept exactly as signed.
        let payload = try #require(inspection.payload)
        let reference = try JSONSerialization.jsonObject(with: Data(payload.rendered().utf8)) as! NSDictionary
        #expect(reference == (expected["payload"] as! NSDictionary))
    }

    /// A notification's nested tokens are verified too, and named by their member.
    @Test(arguments: apple.filter { $0.kind == .notification })
    func nestedTokensAreVerified(_ item: Case) throws {
        let expected = try item.expected()
        let nested = (expected["nested"] as? [[String: Any]]) ?? []
        let dated = ((expected["validation_time"] as! [String: Any])["present"] as! Bool)
        let inspection = try (dated ? Self.verifier : Self.verifierInsideLeafValidity(expected)).inspect(try item.token())
        #expect(inspection.nested.map(\.member) == nested.map { $0["field"] as? String })
        for (found, wanted) in zip(inspection.nested, nested) {
            #expect(found.verdict == ((wanted["verdict_at_own_validation_time"] as! Bool) ? .verified : .notVerified))
        }
    }

    /// Each token is refused where another kind is expected.
    @Test(arguments: apple.filter { $0.name.contains("2025") })
    func aTokenOfAnotherKindIsRefused(_ item: Case) throws {
        let other: SignedDataKind = item.kind == .transaction ? .renewalInfo : .transaction
        let inspection = Self.verifier.inspect(try item.token(), expecting: other)
        #expect(inspection.failure?.code == .wrongKind)
        #expect(inspection.verdict == .notVerified)
    }

    /// Apple's chain expires: at 2026-11-01 the first two leaf generations are out of date.
    @Test(arguments: apple.filter { $0.name.contains("2022") || $0.name.contains("2023") })
    func oldLeavesAreNotValidToday(_ item: Case) throws {
        let today = SignedDataVerifier(policy: VerificationPolicy(validationTime: .instant(Date(timeIntervalSince1970: 1_793_491_200))))
        #expect(today.inspect(try item.token()).failure?.code == .certificateNotValidAtTime)
    }

    /// Xcode's tokens: refused under Apple's root (one certificate, not Apple's), verified only
    /// with the StoreKit Testing certificate given explicitly.
    @Test(arguments: xcode)
    func xcodeTokensNeedTheirCertificate(_ item: Case) throws {
        #expect(Self.verifier.inspect(try item.token()).failure?.code == .untrustedChain)
        let certificate = [UInt8](try Data(contentsOf: item.root.appendingPathComponent("StoreKitTestingInXcode.der")))
        let xcode = SignedDataVerifier(anchor: try .storeKitTesting(certificate: certificate))
        let inspection = xcode.inspect(try item.token(), expecting: item.kind)
        let report = try #require(try inspection.verification?.get(), "\(inspection.failure?.description ?? "")")
        let time = (try item.expected())["validation_time"] as! [String: Any]
        #expect(abs(report.validationTime.timeIntervalSince1970 * 1000 - (time["ms"] as! NSNumber).doubleValue) < 0.01)
        #expect(report.mode == .storeKitTesting)
    }

    /// Apple's library test CA: some of its tokens carry a root with testCA.der's name and key
    /// but other bytes; those are refused (x5c[2] must be the configured root, byte for byte).
    /// The rest verify when they have a date to be judged at.
    @Test(arguments: testCA)
    func testCATokensNeedTheExactRoot(_ item: Case) throws {
        let expected = try item.expected()
        let chain = (expected["verification"] as! [String: Any])["chain"] as? [String: Any]
        let root = [UInt8](try Data(contentsOf: item.root.appendingPathComponent("testCA.der")))
        let verifier = SignedDataVerifier(anchor: try .appStore(rootCertificate: root))
        let inspection = verifier.inspect(try item.token(), expecting: item.kind)
        if chain?["x5c_root_equals_anchor"] as? Bool != true {
            #expect(inspection.failure?.code == .untrustedChain)
        } else if (expected["validation_time"] as! [String: Any])["present"] as! Bool {
            #expect(inspection.verdict == .verified, "\(inspection.failure?.description ?? "")")
        } else {
            #expect(inspection.failure?.code == .missingSignedDate)
        }
    }

    /// The expectations: bundle id, environment, App Apple ID; renewal info has no bundle id.
    @Test func expectationsAreChecked() throws {
        let transaction = try #require(Self.apple.first { $0.kind == .transaction && $0.name.hasPrefix("sandbox") })
        let renewal = try #require(Self.apple.first { $0.kind == .renewalInfo })
        let payload = try #require(Self.verifier.inspect(try transaction.token()).payload)
        guard case .string(let bundleID)? = payload["bundleId"] else { Issue.record("no bundle id"); return }

        let matching = SignedDataVerifier(expectations: .init(bundleIDs: [ExactIdentifier(bundleID)], environment: .sandbox))
        #expect(matching.inspect(try transaction.token()).verdict == .verified)
        #expect(matching.inspect(try transaction.token()).checks.map(\.outcome) == [.passed, .passed])

        let otherApp = SignedDataVerifier(expectations: .init(bundleIDs: [ExactIdentifier(bundleID + "x")]))
        #expect(otherApp.inspect(try transaction.token()).verdict == .notAccepted)
        #expect(otherApp.inspect(try transaction.token()).failure?.code == .appIdentityMismatch)

        let production = SignedDataVerifier(expectations: .init(environment: .production))
        #expect(production.inspect(try transaction.token()).failure?.code == .environmentMismatch)

        let renewalChecks = otherApp.inspect(try renewal.token())
        #expect(renewalChecks.verdict == .verified)
        #expect(renewalChecks.checks.map(\.outcome) == [.notApplicable])
    }
}
