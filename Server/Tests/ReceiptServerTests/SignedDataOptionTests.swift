import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptParser
import ReceiptTestSupport
import Testing
@testable import ReceiptServer
@testable import receipt_server

/// The options that configure receipts configure tokens too: `--root`, `--storekit-testing` and
/// `--at` make the token verifier; `--bundle-id`, `--environment` and `--app-apple-id` are its
/// expectations.
struct SignedDataOptionTests {
    typealias Fixtures = SignedDataFixtures
    static let testRoot = Fixtures.testRoot.path

    static func configuration(_ arguments: [String]) throws -> ServerConfiguration {
        try ReceiptServerCommand.parse(["--port", "0"] + arguments).configuration()
    }

    /// The status and error code `/v1/transactions` answers the fixture `name` with under `arguments`.
    static func answer(_ name: String, _ arguments: [String]) async throws -> (Int, String?) {
        try await buildApplication(try configuration(arguments), logger: ServerTests.logger).test(.live) { client in
            let (status, json) = try await Fixtures.answer(client, "/v1/transactions", ByteBuffer(bytes: try Fixtures.file(name)))
            return (status, Fixtures.error(json)["code"])
        }
    }

    @Test func theServersRulesAreTheTokensExpectations() throws {
        let one = try Self.configuration(["--root", Self.testRoot, "--bundle-id", "com.example.receiptparser.sample",
                                          "--environment", "sandbox", "--app-apple-id", "1234567890"])
        #expect(one.signedDataVerifier.expectations == AcceptanceExpectations(bundleIDs: ["com.example.receiptparser.sample"],
                                                                               environment: .sandbox, appAppleID: 1_234_567_890))
        // Several bundle ids: the library holds tokens to the set, as the server holds receipts.
        let two = try Self.configuration(["--bundle-id", "com.example.a", "--bundle-id", "com.example.b", "--environment", "production"])
        #expect(two.signedDataVerifier.expectations == AcceptanceExpectations(bundleIDs: ["com.example.a", "com.example.b"], environment: .production))
        #expect(two.acceptance == two.signedDataVerifier.expectations)
        // A sandbox server with Xcode's certificate takes Xcode's tokens (sandbox accepts Xcode's data).
        let xcode = try Self.configuration(["--storekit-testing", Fixtures.storeKitCertificate.path, "--environment", "sandbox"])
        #expect(xcode.signedDataVerifier.expectations.environment == .sandbox)
        #expect(xcode.signedDataVerifier.anchor.mode == .storeKitTesting)
    }

    /// The verifier follows the configuration whichever is set last.
    @Test func theVerifierStaysInStepWithTheConfiguration() {
        var configuration = ServerConfiguration(acceptedBundleIDs: ["com.example.a"], appAppleID: 7)
        #expect(configuration.signedDataVerifier.expectations == AcceptanceExpectations(bundleIDs: ["com.example.a"], appAppleID: 7))
        configuration.signedDataVerifier = SignedDataVerifier(expectations: AcceptanceExpectations(bundleIDs: ["com.example.z"]))
        #expect(configuration.signedDataVerifier.expectations == AcceptanceExpectations(bundleIDs: ["com.example.a"], appAppleID: 7))
        configuration.expectedEnvironment = .production
        #expect(configuration.signedDataVerifier.expectations.environment == .production)
    }

    @Test func rootStoreKitTestingAndAtApplyToTokens() async throws {
        #expect(try await Self.answer("transaction.jws", ["--root", Self.testRoot]) == (200, nil))
        // Apple Root CA - G3 by default: the test PKI's tokens are not Apple's.
        #expect(try await Self.answer("transaction.jws", []) == (422, "untrustedChain"))
        #expect(try await Self.answer("transaction.jws", ["--root", Self.testRoot, "--at", "2027-01-01T00:00:01Z"]) == (422, "certificateNotValidAtTime"))
        #expect(try await Self.answer("expired-leaf.jws", ["--root", Self.testRoot, "--at", "2025-06-01T12:00:00Z"]) == (200, nil))
        let storeKit = ["--storekit-testing", Fixtures.storeKitCertificate.path]
        #expect(try await Self.answer("xcode-transaction.jws", storeKit + ["--environment", "sandbox"]) == (200, nil))
        #expect(try await Self.answer("xcode-transaction.jws", storeKit + ["--environment", "production"]) == (422, "environmentMismatch"))
        #expect(try await Self.answer("xcode-other-certificate.jws", storeKit) == (422, "untrustedChain"))
        #expect(try await Self.answer("transaction.jws", ["--root", Self.testRoot, "--environment", "production"]) == (422, "environmentMismatch"))
    }

    @Test func appAppleIDFromTheCommandLineOrTheEnvironment() async throws {
        let notification = ByteBuffer(bytes: try Fixtures.file("body-signed-payload.json"))
        for (id, status) in [("1234567890", 200), ("1234567891", 400)] {
            try await buildApplication(try Self.configuration(["--root", Self.testRoot, "--app-apple-id", id]), logger: ServerTests.logger).test(.live) { client in
                let (answered, json) = try await Fixtures.answer(client, "/v2/notifications", notification)
                #expect(answered == status, "\(id)")
                #expect(Fixtures.error(json)["code"] == (status == 200 ? nil : "appIdentityMismatch"))
            }
        }
        #expect(throws: (any Error).self) { try ReceiptServerCommand.parse(["--app-apple-id", "0"]) }
        #expect(throws: (any Error).self) { try ReceiptServerCommand.parse(["--app-apple-id", "12ab"]) }
    }

    /// The variable is read and checked like the option; a value that is no App Apple ID stops
    /// the server rather than leaving the check out. Run as a child process: the environment is
    /// the whole test process's, and other tests parse options at the same time.
    @Test(arguments: [("12ab", "RECEIPT_SERVER_APP_APPLE_ID is a positive number, not '12ab'."),
                      ("0", "--app-apple-id is a positive number.")])
    func appAppleIDFromTheEnvironment(_ value: String, _ message: String) async throws {
        let (status, text) = try await ReceiptServerProgram.run(environment: ["RECEIPT_SERVER_APP_APPLE_ID": value])
        #expect(status == 64)
        #expect(text.contains(message), "\(text)")
    }

    /// With no trust option, real Apple tokens verify: Apple Root CA - G3 is the default anchor.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func appleRootCAG3ByDefault() async throws {
        let token = try Paths.bytes(Fixtures.corpus.appendingPathComponent("tokens/production-transaction-20230628T083832-072921.jws"))
        try await buildApplication(try Self.configuration([]), logger: ServerTests.logger).test(.live) { client in
            let (status, json) = try await Fixtures.answer(client, "/v1/transactions", ByteBuffer(bytes: token))
            #expect(status == 200)
            let chain = ((TransactionRouteTests.tokens(json).first?["verification"] as? [String: Any])?["chain"] as? [[String: Any]]) ?? []
            #expect(chain.last?["sha256"] as? String == TrustAnchor.appleRootCAG3SHA256)
        }
    }
}
