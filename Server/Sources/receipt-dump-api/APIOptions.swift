import AppStoreServerAPI
import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptParser

/// The options every `receipt-dump api` command shares: credentials, hosts, limits, trust, output.
struct APIOptions: ParsableArguments {
    @Option(name: .customLong("key-file"), help: ArgumentHelp("The In-App Purchase key (.p8) from App Store Connect (APP_STORE_KEY_FILE).", valueName: "PATH"))
    var keyFile: String?
    @Option(name: .customLong("key-id"), help: ArgumentHelp("The key's id (APP_STORE_KEY_ID).", valueName: "ID"))
    var keyID: String?
    @Option(name: .customLong("issuer-id"), help: ArgumentHelp("Your team's issuer id (APP_STORE_ISSUER_ID).", valueName: "ID"))
    var issuerID: String?
    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("The app's bundle id; every signed value must be for it (APP_STORE_BUNDLE_ID).", valueName: "ID"))
    var bundleID: String?

    enum EnvironmentChoice: String, ExpressibleByArgument, CaseIterable {
        case production, sandbox, auto
    }

    @Option(help: "production, sandbox, or auto: production, then sandbox when production does not know the transaction or the app is not yet released.")
    var environment: EnvironmentChoice = .production
    @Option(name: .customLong("api-url"), help: ArgumentHelp("Replaces Apple's production base URL (tests, proxies); /inApps/... is appended.", valueName: "URL"))
    var apiURL: String = AppStoreServerAPIConfiguration.productionURL
    @Option(name: .customLong("sandbox-api-url"), help: ArgumentHelp("Replaces Apple's sandbox base URL.", valueName: "URL"))
    var sandboxAPIURL: String = AppStoreServerAPIConfiguration.sandboxURL

    @Option(help: ArgumentHelp("Each request's deadline.", valueName: "SECONDS"))
    var timeout: Double = 30
    @Option(name: .customLong("max-wait"), help: ArgumentHelp("How long the whole call may take: budgets, Retry-After, retries, pages.", valueName: "SECONDS"))
    var maxWait: Double = 120
    @Option(name: .customLong("max-answer-bytes"), help: ArgumentHelp("Answers larger than this are refused.", valueName: "BYTES"))
    var maxAnswerBytes: Int = 8 << 20

    @OptionGroup(title: "Trust") var trust: TrustOptions<NoEnvironmentDefaults>

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }
    @Option(help: "text (people) or json (Apple's answer, and each signed value's report).")
    var format: Format = .text
    @Flag(name: .customLong("no-color"), help: "No colour, even on a terminal (NO_COLOR is honoured too).")
    var noColor = false

    private static func variable(_ name: String) -> String? { ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 } }

    func validate() throws {
        guard timeout > 0, maxWait > 0, maxAnswerBytes > 0 else {
            throw ValidationError("--timeout, --max-wait and --max-answer-bytes take positive values.")
        }
        for (value, option, variable) in [(keyFile, "--key-file", "APP_STORE_KEY_FILE"), (keyID, "--key-id", "APP_STORE_KEY_ID"),
                                          (issuerID, "--issuer-id", "APP_STORE_ISSUER_ID"), (bundleID, "--bundle-id", "APP_STORE_BUNDLE_ID")]
        where value == nil && Self.variable(variable) == nil {
            throw ValidationError("Give \(option) or set \(variable).")
        }
        for url in [apiURL, sandboxAPIURL] {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw ValidationError("--api-url and --sandbox-api-url take http(s) URLs, not '\(DisplayText.escape(url, limit: 200))'.")
            }
        }
    }

    /// The client these options describe; usage errors (exit 64) for a key that cannot be used.
    func makeClient() throws -> AppStoreServerAPIClient {
        let path = keyFile ?? Self.variable("APP_STORE_KEY_FILE")!
        guard let bytes = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read the key file \(path)") }
        let key: ES256SigningKey
        do {
            key = try ES256SigningKey(pkcs8: [UInt8](bytes))
        } catch {
            throw ValidationError("the key file \(path) is not an App Store Connect key: \(DisplayText.escape(error.reason, limit: DisplayText.reasonLimit))")
        }
        let credentials = AppStoreCredentials(key: key, keyID: keyID ?? Self.variable("APP_STORE_KEY_ID")!,
                                              issuerID: issuerID ?? Self.variable("APP_STORE_ISSUER_ID")!,
                                              bundleID: bundleID ?? Self.variable("APP_STORE_BUNDLE_ID")!)
        let choice: AppStoreServerAPIConfiguration.EnvironmentChoice = switch environment {
        case .production: .production
        case .sandbox: .sandbox
        case .auto: .auto
        }
        var configuration = AppStoreServerAPIConfiguration(credentials: credentials, environment: choice, productionURL: apiURL,
                                                           sandboxURL: sandboxAPIURL, trust: try trust.makeSignedDataVerifier())
        configuration.timeout = timeout
        configuration.maxWait = maxWait
        configuration.maxAnswerBytes = maxAnswerBytes
        return AppStoreServerAPIClient(configuration: configuration)
    }
}
