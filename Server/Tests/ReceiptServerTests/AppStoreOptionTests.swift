import AppleSimulator
import AppStoreServerAPI
import ArgumentParser
import Foundation
import ReceiptServer
import ServerTestSupport
import Testing
@testable import receipt_server

/// receipt-server's App Store Server API options: by flag in the process, and by
/// `RECEIPT_SERVER_*` variable through the built program (the variables are the process's own,
/// so they are not set in this one, where other suites parse the command line at the same time).
@Suite(.timeLimit(.minutes(3)))
struct AppStoreOptionTests {
    static let ledger = ["--ledger", "sqlite:/tmp/ledger.sqlite", "--ledger-token", LedgerFixtures.token,
                         "--environment", "sandbox", "--bundle-id", "com.example.receipts"]

    @Test func flagsConfigureTheClientAndTheReconciler() async throws {
        try await withTemporaryDirectory("app-store-options") { directory in
            let keyFile = directory.appendingPathComponent("AuthKey.p8")
            try Data(try AppleSimulator().privateKeyPEM.utf8).write(to: keyFile)
            let command = try ReceiptServerCommand.parse(Self.ledger + [
                "--app-store-key-file", keyFile.path, "--app-store-key-id", "KEY123", "--app-store-issuer-id", "ISSUER-1",
                "--app-store-api-url", "http://127.0.0.1:9/production", "--app-store-sandbox-api-url", "http://127.0.0.1:9/sandbox",
                "--reconcile-interval", "300", "--reconcile-since", "2026-01-01T00:00:00Z", "--set-app-account-tokens",
            ])
            let settings = try #require(try command.appStoreSettings())
            #expect(settings.client.credentials.keyID == "KEY123" && settings.client.credentials.issuerID == "ISSUER-1"
                    && settings.client.credentials.bundleID == "com.example.receipts")
            #expect(settings.client.environment == .sandbox)
            #expect(settings.client.productionURL == "http://127.0.0.1:9/production" && settings.client.sandboxURL == "http://127.0.0.1:9/sandbox")
            #expect(settings.reconcileInterval == 300 && settings.setsAppAccountTokens)
            #expect(settings.reconcileSince == Date(timeIntervalSince1970: 1_767_225_600))

            // Apple's hosts by default, no schedule, the first cycle from 24 hours back.
            let plain = try #require(try ReceiptServerCommand.parse(Self.ledger + [
                "--app-store-key-file", keyFile.path, "--app-store-key-id", "KEY123", "--app-store-issuer-id", "ISSUER-1",
            ]).appStoreSettings())
            #expect(plain.client.productionURL == "https://api.storekit.apple.com" && plain.client.sandboxURL == "https://api.storekit-sandbox.apple.com")
            #expect(plain.reconcileInterval == nil && plain.reconcileSince == nil && !plain.setsAppAccountTokens)
            // Without any of them the server has no App Store client.
            #expect(try ReceiptServerCommand.parse(Self.ledger).appStoreSettings() == nil)

            let credentials = ["--app-store-key-file", keyFile.path, "--app-store-key-id", "K", "--app-store-issuer-id", "I"]
            let cases: [([String], String)] = [
                (Self.ledger + ["--app-store-key-id", "K"], "together"),
                (Array(Self.ledger.dropFirst(4)) + credentials, "needs --ledger"),
                (Self.ledger + credentials + ["--bundle-id", "com.example.other"], "exactly one --bundle-id"),
                (Self.ledger + credentials + ["--reconcile-interval", "0.5"], "takes 1 to 86400 seconds"),
                (Self.ledger + credentials + ["--reconcile-since", "yesterday"], "--reconcile-since"),
                (Self.ledger + credentials + ["--app-store-api-url", "ftp://example.com"], "http(s) URLs"),
                (Self.ledger + ["--set-app-account-tokens"], "need --app-store-key-file"),
            ]
            for (arguments, message) in cases {
                do {
                    _ = try ReceiptServerCommand.parse(arguments)
                    Issue.record("parsed: \(arguments)")
                } catch {
                    #expect(ReceiptServerCommand.exitCode(for: error).rawValue == 64, "\(arguments)")
                    #expect(ReceiptServerCommand.message(for: error).contains(message), "\(arguments): \(ReceiptServerCommand.message(for: error))")
                }
            }
        }
    }

    /// Each variable is read: a set of them that the server refuses for the variable's value,
    /// named in the message, proves the program saw it.
    @Test func variablesAreReadByTheProgram() async throws {
        try await withTemporaryDirectory("app-store-variables") { directory in
            let keyFile = directory.appendingPathComponent("AuthKey.p8")
            try Data(try AppleSimulator().privateKeyPEM.utf8).write(to: keyFile)
            let base = ["RECEIPT_SERVER_LEDGER": "sqlite:\(directory.path)/ledger.sqlite", "RECEIPT_SERVER_LEDGER_TOKEN": LedgerFixtures.token,
                        "RECEIPT_SERVER_ENVIRONMENT": "sandbox", "RECEIPT_SERVER_BUNDLE_IDS": "com.example.receipts"]
            let credentials = ["RECEIPT_SERVER_APP_STORE_KEY_FILE": keyFile.path, "RECEIPT_SERVER_APP_STORE_KEY_ID": "K",
                               "RECEIPT_SERVER_APP_STORE_ISSUER_ID": "I"]
            let cases: [([String: String], String)] = [
                (["RECEIPT_SERVER_APP_STORE_KEY_FILE": keyFile.path], "together"),
                (["RECEIPT_SERVER_APP_STORE_KEY_ID": "K"], "together"),
                (["RECEIPT_SERVER_APP_STORE_ISSUER_ID": "I"], "together"),
                (credentials.merging(["RECEIPT_SERVER_APP_STORE_API_URL": "ftp://example.com"]) { $1 }, "http(s) URLs"),
                (credentials.merging(["RECEIPT_SERVER_APP_STORE_SANDBOX_API_URL": "ftp://example.com"]) { $1 }, "http(s) URLs"),
                (credentials.merging(["RECEIPT_SERVER_RECONCILE_INTERVAL": "soon"]) { $1 }, "RECEIPT_SERVER_RECONCILE_INTERVAL"),
                (credentials.merging(["RECEIPT_SERVER_RECONCILE_SINCE": "yesterday"]) { $1 }, "--reconcile-since"),
                (["RECEIPT_SERVER_SET_APP_ACCOUNT_TOKENS": "1"], "need --app-store-key-file"),
            ]
            for (variables, message) in cases {
                let (status, errors) = try await ReceiptServerProgram.run(environment: base.merging(variables) { $1 })
                #expect(status == 64 && errors.contains(message), "\(variables.keys.sorted()): \(status) \(errors)")
            }
        }
    }
}
