import AppStoreServerAPI
import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptParser

/// The options every `receipt-dump api` command shares: credentials, hosts, limits, trust, output.
struct APIOptions: ParsableArguments {
    @OptionGroup(title: "Credentials") var credentials: AppStoreCredentialOptions

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

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout takes more than 0 and at most 3600 seconds.") }
        guard maxWait > 0, maxWait <= 86_400 else { throw ValidationError("--max-wait takes more than 0 and at most 86400 seconds.") }
        guard maxAnswerBytes > 0, maxAnswerBytes <= 1 << 30 else { throw ValidationError("--max-answer-bytes takes 1 to 1073741824.") }
        for url in [apiURL, sandboxAPIURL] {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw ValidationError("--api-url and --sandbox-api-url take http(s) URLs, not '\(DisplayText.escape(url, limit: 200))'.")
            }
        }
    }

    /// The client these options describe; usage errors (exit 64) for credentials missing or a key
    /// that cannot be used.
    func makeClient() throws -> AppStoreServerAPIClient {
        let credentials = try self.credentials.credentials()
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
