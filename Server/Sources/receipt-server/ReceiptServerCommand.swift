import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ReceiptCommandLine
import ReceiptLedger
import ReceiptParser
import ReceiptServer

/// Every option also has a RECEIPT_SERVER_* variable, which gives its default.
enum ServerEnvironment: EnvironmentDefaults {
    static var prefix: String? { "RECEIPT_SERVER_" }
}

private func fromEnvironment(_ name: String) -> String? { ServerEnvironment.value(name) }

@main
struct ReceiptServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt-server",
        abstract: "A verifyReceipt-compatible server that verifies App Store receipts locally.",
        discussion: """
        Routes: POST /verifyReceipt (Apple's request and response format), POST /v1/receipts (the typed \
        JSON), POST /v2/notifications (App Store Server Notifications V2: 200 only when verified), \
        POST /v1/transactions (StoreKit 2 transactions, typed), GET / (a page for support staff), \
        GET /health (liveness), GET /health/ready (503 when the ledger cannot be reached), GET /metrics \
        (Prometheus) and GET /openapi.yaml (every route, status and refusal). Every refusal is \
        {"error":{"code","reason","member"?},"status"?,"verdict"?}. With --ledger, the credit ledger's routes, each requiring Authorization: Bearer \
        and the ledger token: POST /v1/credits, PUT /v1/users/{user}, GET /v1/uncredited, \
        GET /v1/users/{user}/credits, GET /v1/revoked, GET /v1/users/{user}/entitlements, \
        GET /v1/subscriptions/{originalTransactionId}, GET /v1/notifications, GET /v1/webhooks/failed, \
        POST /v1/webhooks/{id}/retry, and, with App Store credentials, POST and GET /v1/reconcile and \
        POST /v1/reconcile/transactions/{transactionId}. Verifications run a bounded number \
        at once; a request that cannot start within --verification-timeout gets 503 with status 21005. \
        Every option may also be set with the environment variable named in its help.
        """
    )

    @Option(help: "Address to listen on (RECEIPT_SERVER_HOST).")
    var host: String = fromEnvironment("HOST") ?? "127.0.0.1"

    @Option(help: "Port to listen on (RECEIPT_SERVER_PORT).")
    var port: Int = fromEnvironment("PORT").flatMap(Int.init) ?? 8080

    @OptionGroup(title: "Trust") var trust: TrustOptions<ServerEnvironment>

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("Accept receipts and tokens of this app; repeat for several (RECEIPT_SERVER_BUNDLE_IDS, comma-separated). Default: any.", valueName: "ID"))
    var bundleIDs: [String] = fromEnvironment("BUNDLE_IDS")?.split(separator: ",").map(String.init) ?? []

    @Option(help: ArgumentHelp("The environment this server serves, production or sandbox: receipts from the other get 21007/21008, of unknown type 21003; tokens from another are refused (RECEIPT_SERVER_ENVIRONMENT).", valueName: "ENV"))
    var environment: String? = fromEnvironment("ENVIRONMENT")

    @Option(name: .customLong("app-apple-id"), help: ArgumentHelp("The App Apple ID receipts (their app item id) and StoreKit 2 tokens must carry; data that is not production and has none is not held to it (RECEIPT_SERVER_APP_APPLE_ID).", valueName: "N"))
    var appAppleIDArgument: Int64?
    /// `--app-apple-id`, else its variable (an optional option takes no default value).
    var appAppleID: Int64? { appAppleIDArgument ?? fromEnvironment("APP_APPLE_ID").flatMap { Int64($0) } }

    @Option(name: .customLong("max-body-size"), help: "Largest request body in bytes (RECEIPT_SERVER_MAX_BODY_SIZE).")
    var maximumBodySize: Int = fromEnvironment("MAX_BODY_SIZE").flatMap(Int.init) ?? 4 << 20

    @Option(name: .customLong("idle-timeout"), help: "Seconds before an idle connection is closed (RECEIPT_SERVER_IDLE_TIMEOUT).")
    var idleTimeout: Int64 = fromEnvironment("IDLE_TIMEOUT").flatMap { Int64($0) } ?? 30

    @Option(name: .customLong("max-concurrent-verifications"), help: ArgumentHelp("Verifications run at once, off the event loops (RECEIPT_SERVER_MAX_CONCURRENT_VERIFICATIONS). Default: twice the processors.", valueName: "N"))
    var maximumConcurrentVerifications: Int = fromEnvironment("MAX_CONCURRENT_VERIFICATIONS").flatMap(Int.init)
        ?? ServerConfiguration.defaultMaximumConcurrentVerifications

    @Option(name: .customLong("verification-timeout"), help: ArgumentHelp("Seconds a request may wait for a verification slot before it gets 503 with status 21005 (RECEIPT_SERVER_VERIFICATION_TIMEOUT).", valueName: "SECONDS"))
    var verificationTimeout: Double = fromEnvironment("VERIFICATION_TIMEOUT").flatMap(Double.init) ?? 2

    @Option(name: .customLong("ledger"), help: ArgumentHelp("The credit ledger: sqlite:PATH or postgres://USER@HOST:PORT/DB; without it the ledger routes answer 404 (RECEIPT_SERVER_LEDGER).", valueName: "LOCATION"))
    var ledgerArgument: String?
    /// `--ledger`, else its variable.
    var ledger: String? { ledgerArgument ?? fromEnvironment("LEDGER") }

    @Option(name: .customLong("ledger-token"), help: ArgumentHelp("The token the ledger routes require as Authorization: Bearer, at least 16 characters without whitespace; required with --ledger (RECEIPT_SERVER_LEDGER_TOKEN, which keeps it out of the process list).", valueName: "TOKEN"))
    var ledgerTokenArgument: String?
    /// `--ledger-token`, else its variable.
    var ledgerToken: String? { ledgerTokenArgument ?? fromEnvironment("LEDGER_TOKEN") }

    @Option(name: .customLong("webhook-url"), help: ArgumentHelp("Post each change of a user's entitlement, each credit, revocation and reversal here, signed as Standard Webhooks say; needs --ledger and --webhook-secret (RECEIPT_SERVER_WEBHOOK_URL).", valueName: "URL"))
    var webhookURLArgument: String?
    var webhookURL: String? { webhookURLArgument ?? fromEnvironment("WEBHOOK_URL") }

    @Option(name: .customLong("webhook-secret"), help: ArgumentHelp("The webhooks' signing secret, whsec_ and base64 (RECEIPT_SERVER_WEBHOOK_SECRET, which keeps it out of the process list).", valueName: "SECRET"))
    var webhookSecretArgument: String?
    var webhookSecret: String? { webhookSecretArgument ?? fromEnvironment("WEBHOOK_SECRET") }

    @Option(name: .customLong("webhook-retry-schedule"), help: ArgumentHelp("The waits before each retry of a webhook not answered 2xx within 10 s, then it is failed (RECEIPT_SERVER_WEBHOOK_RETRY_SCHEDULE).", valueName: "WAITS"))
    var webhookRetrySchedule: String = fromEnvironment("WEBHOOK_RETRY_SCHEDULE") ?? WebhookConfiguration.defaultRetrySchedule

    @OptionGroup(title: "App Store Server API") var appStore: AppStoreOptions

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (RECEIPT_SERVER_LOG_LEVEL).")
    var logLevel: String = fromEnvironment("LOG_LEVEL") ?? "info"

    func validate() throws {
        if let environment, !["production", "sandbox"].contains(environment) {
            throw ValidationError("--environment is production or sandbox, not '\(environment)'.")
        }
        // A check configured but not applied would be worse than none: a bad value stops the server.
        if appAppleIDArgument == nil, let text = fromEnvironment("APP_APPLE_ID"), Int64(text) == nil {
            throw ValidationError("RECEIPT_SERVER_APP_APPLE_ID is a positive number, not '\(text)'.")
        }
        if let appAppleID, appAppleID < 1 { throw ValidationError("--app-apple-id is a positive number.") }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("unknown --log-level '\(logLevel)'.") }
        if !(0...65_535).contains(port) { throw ValidationError("--port must be 0...65535.") }
        if maximumConcurrentVerifications < 1 { throw ValidationError("--max-concurrent-verifications must be at least 1.") }
        if !(verificationTimeout > 0 && verificationTimeout <= 3600) {
            throw ValidationError("--verification-timeout must be more than 0 and at most 3600 seconds.")
        }
        _ = try ledgerOptions()
        _ = try webhookOptions()
        _ = try appStoreSettings()
    }

    /// The App Store Server API set-up, or nil without credentials.
    func appStoreSettings() throws -> AppStoreSettings? {
        try appStore.settings(ledger: ledger != nil, bundleIDs: bundleIDs, environment: environment,
                              trust: { try trust.makeSignedDataVerifier() })
    }

    /// The webhooks the options configure, or nil without `--webhook-url`; a usage error when they
    /// are malformed, lack a secret, or have no ledger to keep their events in.
    func webhookOptions() throws -> WebhookConfiguration? {
        guard let webhookURL else { return nil }
        guard ledger != nil else { throw ValidationError("--webhook-url needs --ledger: the events are kept in the ledger until delivered.") }
        guard let webhookSecret else {
            throw ValidationError("--webhook-url needs --webhook-secret or RECEIPT_SERVER_WEBHOOK_SECRET.")
        }
        do {
            return try WebhookConfiguration(url: webhookURL, secret: webhookSecret, retrySchedule: webhookRetrySchedule)
        } catch {
            throw ValidationError("\(error.description).")
        }
    }

    /// Where the ledger is and its token, or nil without `--ledger`; a usage error when either is
    /// malformed or the token is missing: a ledger open to anyone would be worse than none.
    func ledgerOptions() throws -> (location: LedgerLocation, token: LedgerToken)? {
        guard let ledger else { return nil }
        do {
            let location = try LedgerLocation(ledger)
            guard let ledgerToken else {
                throw ValidationError("--ledger needs --ledger-token or RECEIPT_SERVER_LEDGER_TOKEN.")
            }
            let token = try LedgerToken(ledgerToken)
            // Sandbox purchases cost nothing: a ledger that took them with production ones would
            // credit free goods to anyone with a developer account.
            guard environment != nil else {
                throw ValidationError("--ledger needs --environment production or sandbox: the ledger credits the environment it serves, and sandbox purchases are free.")
            }
            return (location, token)
        } catch let error as LedgerOptionError {
            throw ValidationError("\(error.description).")
        }
    }

    /// The ledger the options name, opened (and migrated); a clear start-up error when it cannot be.
    func openLedger(logger: Logger = Logger(label: "receipt-server")) async throws -> ServerLedger? {
        guard let options = try ledgerOptions() else { return nil }
        let webhooks = try webhookOptions()
        let appStore = try appStoreSettings()
        do throws(LedgerError) {
            let opened = try await options.location.openLedger(token: options.token, webhooks: webhooks, logger: logger)
            return ServerLedger(ledger: opened.ledger, token: opened.token, services: opened.services, appStore: appStore)
        } catch {
            throw LedgerStartupError(description: "cannot open the ledger \(options.location.displayName): \(error.description)")
        }
    }

    func run() async throws {
        // Log values can come from forged receipts: every record goes through DisplayText.
        LoggingSystem.bootstrap { label in DisplaySafeLogHandler(wrapping: StreamLogHandler.standardError(label: label)) }
        var logger = Logger(label: "receipt-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        try await buildApplication(try configuration(), ledger: try await openLedger(logger: logger), logger: logger).runService()
    }

    /// What the options describe; reads the trust options' certificate file. The token verifier
    /// takes its expectations from the configuration (bundle ids, environment, App Apple ID).
    func configuration() throws -> ServerConfiguration {
        ServerConfiguration(
            host: host, port: port, verifier: try trust.makeVerifier(), signedDataVerifier: try trust.makeSignedDataVerifier(),
            acceptedBundleIDs: Set(bundleIDs.map(ExactIdentifier.init)),
            expectedEnvironment: environment.map { $0 == "production" ? .production : .sandbox }, appAppleID: appAppleID,
            maximumBodySize: maximumBodySize, idleTimeoutSeconds: idleTimeout,
            maximumConcurrentVerifications: maximumConcurrentVerifications, verificationTimeoutSeconds: verificationTimeout)
    }
}

/// The ledger named could not be opened: the server does not start without it.
struct LedgerStartupError: Error, CustomStringConvertible {
    let description: String
}
