import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptTestSupport
import Testing
@testable import ReceiptServer
@testable import receipt_server

/// receipt-server's trust options, parsed as on its command line: the group receipt-dump uses
/// (ReceiptCommandLine's TrustOptions), with the digest policy and the instant it gained.
struct TrustOptionTests {
    static let testRoot = Paths.fixtures.appendingPathComponent("pki/test-root.der").path

    /// The server receipt-server would start with `arguments` (on a free port).
    static func application(_ arguments: [String]) throws -> some ApplicationProtocol {
        buildApplication(try ReceiptServerCommand.parse(["--port", "0"] + arguments).configuration(), logger: ServerTests.logger)
    }

    /// The status /verifyReceipt answers for the fixture `name` under `arguments`.
    func status(of name: String, _ arguments: [String]) async throws -> Int? {
        try await Self.application(arguments).test(.live) { client in
            try await client.execute(uri: "/verifyReceipt", method: .post, body: ServerTests().requestBody(Paths.fixture(name))) { response in
                try ServerTests().object(response.body)["status"] as? Int
            }
        }
    }

    @Test func requireSHA256RefusesASHA1SignedReceipt() async throws {
        #expect(try await status(of: "sha1.receipt", ["--root", Self.testRoot]) == 0)
        #expect(try await status(of: "sha1.receipt", ["--root", Self.testRoot, "--require-sha256"]) == 21003)
        #expect(try await status(of: "sample.receipt", ["--root", Self.testRoot, "--require-sha256"]) == 0)
    }

    @Test func atOutsideTheTestPKIsValidityRefuses() async throws {
        #expect(try await status(of: "sample.receipt", ["--root", Self.testRoot, "--at", "2025-06-01T00:00:00Z"]) == 0)
        #expect(try await status(of: "sample.receipt", ["--root", Self.testRoot, "--at", "2026-06-01T00:00:00Z"]) == 21003)
        // Without --at the receipt's creation date decides, as before.
        #expect(try await status(of: "no-creation-date.receipt", ["--root", Self.testRoot]) != 0)
        #expect(try await status(of: "no-creation-date.receipt", ["--root", Self.testRoot, "--at", "2025-03-01T00:00:00Z"]) == 0)
    }

    @Test func theSupportPageGivesSubscriptionStatusAtTheInstant() async throws {
        let base64 = Data(try Paths.fixture("sample.receipt")).base64EncodedString()
        try await Self.application(["--root", Self.testRoot, "--at", "2025-06-01T00:00:00Z"]).test(.live) { client in
            try await client.execute(uri: "/", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: HostileRequestServerTests.form(base64)) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("<p id=\"verdict\" class=\"verified\">VERIFIED (appStore, SHA-256, certificates valid at 2025-06-01T00:00:00Z)"))
                #expect(page.contains("<p id=\"status\">Subscriptions at 2025-06-01T00:00:00Z: "))
            }
        }
    }

    @Test func usageErrorsAreReceiptDumps() throws {
        func message(_ arguments: [String]) -> String? {
            do {
                _ = try ReceiptServerCommand.parse(arguments)
                return nil
            } catch {
                return ReceiptServerCommand.message(for: error)
            }
        }
        #expect(message(["--root", Self.testRoot, "--storekit-testing", Self.testRoot]) == "--root and --storekit-testing exclude each other.")
        #expect(message(["--at", "yesterday"]) == "--at takes an RFC 3339 time such as 2024-05-01T12:00:00Z, not 'yesterday'.")
        let command = try ReceiptServerCommand.parse(["--root", "no/such/file"])
        #expect(throws: ValidationError.self) { try command.configuration() }
        let policy = try ReceiptServerCommand.parse(["--require-sha256", "--at", "2025-06-01T00:00:00Z"]).configuration().verifier.policy
        #expect(policy.requiresSHA256 && policy.validationTime == .instant(Date(timeIntervalSince1970: 1_748_736_000)))
    }
}
