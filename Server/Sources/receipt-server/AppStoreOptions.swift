import AppStoreServerAPI
import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptParser
import ReceiptServer

/// receipt-server's App Store Server API options: the team's key, Apple's hosts, and what the
/// server does with them (reconcile, set app account tokens). The bundle id is the server's one
/// `--bundle-id`, the environment its `--environment`.
struct AppStoreOptions: ParsableArguments {
    @Option(name: .customLong("app-store-key-file"), help: ArgumentHelp("The In-App Purchase key (.p8) from App Store Connect; with --ledger, enables the reconcile routes (RECEIPT_SERVER_APP_STORE_KEY_FILE).", valueName: "PATH"))
    var keyFileArgument: String?
    var keyFile: String? { keyFileArgument ?? ServerEnvironment.value("APP_STORE_KEY_FILE") }

    @Option(name: .customLong("app-store-key-id"), help: ArgumentHelp("The key's id (RECEIPT_SERVER_APP_STORE_KEY_ID).", valueName: "ID"))
    var keyIDArgument: String?
    var keyID: String? { keyIDArgument ?? ServerEnvironment.value("APP_STORE_KEY_ID") }

    @Option(name: .customLong("app-store-issuer-id"), help: ArgumentHelp("Your team's issuer id (RECEIPT_SERVER_APP_STORE_ISSUER_ID).", valueName: "ID"))
    var issuerIDArgument: String?
    var issuerID: String? { issuerIDArgument ?? ServerEnvironment.value("APP_STORE_ISSUER_ID") }

    @Option(name: .customLong("app-store-api-url"), help: ArgumentHelp("Replaces Apple's production base URL (RECEIPT_SERVER_APP_STORE_API_URL).", valueName: "URL"))
    var apiURLArgument: String?
    var apiURL: String { apiURLArgument ?? ServerEnvironment.value("APP_STORE_API_URL") ?? AppStoreServerAPIConfiguration.productionURL }

    @Option(name: .customLong("app-store-sandbox-api-url"), help: ArgumentHelp("Replaces Apple's sandbox base URL (RECEIPT_SERVER_APP_STORE_SANDBOX_API_URL).", valueName: "URL"))
    var sandboxAPIURLArgument: String?
    var sandboxAPIURL: String { sandboxAPIURLArgument ?? ServerEnvironment.value("APP_STORE_SANDBOX_API_URL") ?? AppStoreServerAPIConfiguration.sandboxURL }

    @Option(name: .customLong("reconcile-interval"), help: ArgumentHelp("Walk Apple's notification history every SECONDS and apply what was missed (RECEIPT_SERVER_RECONCILE_INTERVAL).", valueName: "SECONDS"))
    var reconcileIntervalArgument: Double?
    var reconcileInterval: Double? { reconcileIntervalArgument ?? ServerEnvironment.value("RECONCILE_INTERVAL").map { Double($0) ?? .nan } }

    @Option(name: .customLong("reconcile-since"), help: ArgumentHelp("Where the first cycle starts, RFC 3339 (24 hours back by default; Apple keeps 180 days) (RECEIPT_SERVER_RECONCILE_SINCE).", valueName: "T"))
    var reconcileSinceArgument: String?
    var reconcileSince: String? { reconcileSinceArgument ?? ServerEnvironment.value("RECONCILE_SINCE") }

    @Flag(name: .customLong("set-app-account-tokens"), help: "When a credit gives a user an original transaction without an appAccountToken, set the user's bound token on it at Apple (RECEIPT_SERVER_SET_APP_ACCOUNT_TOKENS=1).")
    var setAppAccountTokensFlag = false
    var setAppAccountTokens: Bool {
        setAppAccountTokensFlag || ServerEnvironment.value("SET_APP_ACCOUNT_TOKENS").map { ["1", "true", "yes"].contains($0.lowercased()) } == true
    }

    /// Whether any App Store option is given.
    var isConfigured: Bool { keyFile != nil || keyID != nil || issuerID != nil }

    /// The settings, or nil without credentials; usage errors for half a set, a key that cannot
    /// be used, or options that need what the server lacks.
    func settings(ledger: Bool, bundleIDs: [String], environment: String?, trust: () throws -> SignedDataVerifier) throws -> AppStoreSettings? {
        guard isConfigured else {
            if reconcileInterval != nil || reconcileSince != nil || setAppAccountTokens {
                throw ValidationError("--reconcile-interval, --reconcile-since and --set-app-account-tokens need --app-store-key-file, --app-store-key-id and --app-store-issuer-id.")
            }
            return nil
        }
        guard let keyFile, let keyID, let issuerID else {
            throw ValidationError("the App Store Server API needs --app-store-key-file, --app-store-key-id and --app-store-issuer-id together.")
        }
        guard ledger else { throw ValidationError("--app-store-key-file needs --ledger: what is healed from Apple is kept there.") }
        guard bundleIDs.count == 1 else { throw ValidationError("--app-store-key-file needs exactly one --bundle-id: the app the key speaks for.") }
        if let reconcileInterval, !(reconcileInterval >= 1 && reconcileInterval <= 86_400) {
            throw ValidationError("--reconcile-interval (RECEIPT_SERVER_RECONCILE_INTERVAL) takes 1 to 86400 seconds.")
        }
        let since = try reconcileSince.map { try RFC3339.instant($0, option: "--reconcile-since") }
        for url in [apiURL, sandboxAPIURL] {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw ValidationError("--app-store-api-url and --app-store-sandbox-api-url take http(s) URLs.")
            }
        }
        let key = try ES256SigningKey.read(path: keyFile)
        let credentials = AppStoreCredentials(key: key, keyID: keyID, issuerID: issuerID, bundleID: bundleIDs[0])
        let client = AppStoreServerAPIConfiguration(credentials: credentials, environment: environment == "sandbox" ? .sandbox : .production,
                                                    productionURL: apiURL, sandboxURL: sandboxAPIURL, trust: try trust())
        return AppStoreSettings(client: client, reconcileInterval: reconcileInterval, reconcileSince: since, setsAppAccountTokens: setAppAccountTokens)
    }
}
