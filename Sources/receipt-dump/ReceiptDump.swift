import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ReceiptCommandLine
import ReceiptParser
import ReceiptReports

@main
struct ReceiptDump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt-dump",
        abstract: "Verify and decode Apple App Store receipts and StoreKit 2 signed data, offline.",
        discussion: """
        Each input may hold a receipt as binary DER/BER, as base64 (wrapped or not), or as a \
        verifyReceipt request body {"receipt-data": "..."}; or StoreKit 2 signed data: a compact \
        JWS (transaction, renewal info, app transaction, notification), or JSON holding \
        signedPayload, signedTransactionInfo, signedRenewalInfo, signedTransactions or \
        signedAppTransactionInfo. The form is detected. Directories are read recursively; - reads \
        standard input; --jsonl reads one receipt or token per line.

        By default a receipt must chain to Apple Inc. Root under Apple's receipt rules, and a \
        token to Apple Root CA - G3 (with its x5c[2] that root, byte for byte), with \
        certificates judged at the receipt's creation date or the token's signed date. A \
        notification's nested tokens are verified too.

        Exit status: 0 every receipt verified and every requested check passed; 1 a receipt \
        decoded but did not verify, or a check failed; 2 a receipt could not be read or decoded; \
        64 usage error. With several receipts, the worst of them. With --no-verify, 0 means \
        every receipt decoded and passed the checks.

        receipt-dump api ... asks Apple's App Store Server API (receipt-dump api --help); it runs \
        receipt-dump-api, built with the Server package. receipt-dump sign ... makes the offer \
        signatures StoreKit takes (receipt-dump sign --help).
        """
    )

    typealias Format = ReportFormat

    /// `receipt-dump api …` is another program's (APICommand), `receipt-dump sign …` its own
    /// command group (SignCommand); everything else is receipt-dump's.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "api" { APICommand.exec(Array(arguments.dropFirst())) }
        if arguments.first == "sign" {
            SignCommand.main(Array(arguments.dropFirst()))
        } else {
            main(nil)
        }
    }

    enum ExpectedEnvironment: String, ExpressibleByArgument, CaseIterable {
        case production, sandbox, xcode

        var environment: Environment {
            switch self {
            case .production: .production
            case .sandbox: .sandbox
            case .xcode: .xcode
            }
        }
    }

    // MARK: Output

    @Option(name: .long, help: "text (people), json (the typed model), verifyreceipt (Apple's JSON), asn1 (raw attribute tree), summary (one line per receipt).")
    var format: Format = .text

    enum JSONLayoutChoice: String, ExpressibleByArgument, CaseIterable {
        case auto, indented, compact
    }

    @Option(name: .customLong("json-layout"), help: ArgumentHelp("With --format json or verifyreceipt: indented (for people), compact (one line per receipt, for programs), or auto: indented on a terminal, compact otherwise.", valueName: "LAYOUT"))
    var jsonLayout: JSONLayoutChoice = .auto

    @Flag(name: .long, help: "Show certificate details: extensions, Apple markers, signature algorithm.")
    var certs = false

    @Flag(name: .customLong("no-color"), help: "No colour, even on a terminal (NO_COLOR is honoured too).")
    var noColor = false

    // MARK: Trust

    @OptionGroup(title: "Trust") var trust: TrustOptions<NoEnvironmentDefaults>

    @Flag(name: .customLong("no-verify"), help: "Decode without verifying the signature or the chain.")
    var noVerify = false

    @Option(name: .long, help: ArgumentHelp("Check the environment: a receipt or token from another fails the check (sandbox also accepts Xcode's StoreKit Testing); with --format verifyreceipt a receipt from the other gives status 21007 or 21008, one of unknown type 21003.", valueName: "ENV"))
    var environment: ExpectedEnvironment?

    @Option(name: .customLong("app-apple-id"), help: ArgumentHelp("Check the App Apple ID of receipts (their app item id) and tokens; data that is not production and carries none (or 0) is not held to it.", valueName: "ID"))
    var appAppleID: Int64?

    // MARK: Filters and checks

    @Option(name: .long, help: ArgumentHelp("Show only purchases of this product.", valueName: "ID"))
    var product: String?

    @Option(name: .long, help: ArgumentHelp("Show only this transaction (or the transactions of this original transaction).", valueName: "ID"))
    var transaction: String?

    @Option(name: .customLong("active-at"), help: ArgumentHelp("Show only subscriptions active at this RFC 3339 instant.", valueName: "RFC3339"))
    var activeAt: String?

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("Check the bundle identifier of the receipt or token (renewal info has none: not applicable).", valueName: "ID"))
    var bundleID: String?

    @Option(name: .customLong("app-version"), help: ArgumentHelp("Check the receipt's application version.", valueName: "VERSION"))
    var appVersion: String?

    @Option(name: .customLong("device-guid"), help: ArgumentHelp("Check the receipt was issued to this device: a UUID (identifierForVendor) or hex (MAC address).", valueName: "GUID"))
    var deviceGUID: String?

    @Option(name: .long, help: ArgumentHelp("Transaction ids the server already credited (one per line, or a JSON array): list the receipt's transactions not yet credited.", valueName: "FILE"))
    var credited: String?

    // MARK: Inputs

    @Option(name: .long, help: ArgumentHelp("A file with one base64 receipt (or request body) per line.", valueName: "FILE"))
    var jsonl: [String] = []

    @Argument(help: ArgumentHelp("Receipt or token files, directories, or - for standard input.", valueName: "FILE"))
    var files: [String] = []

    func validate() throws {
        if files.isEmpty && jsonl.isEmpty {
            throw ValidationError("Give at least one FILE, directory, - or --jsonl FILE.")
        }
        if noVerify && (trust.configuresVerification || format == .verifyreceipt) {
            throw ValidationError("--no-verify excludes --root, --storekit-testing, --require-sha256 and --format verifyreceipt.")
        }
        if let activeAt { _ = try RFC3339.instant(activeAt, option: "--active-at") }
        if let deviceGUID, DeviceIdentifier.parse(deviceGUID) == nil {
            throw ValidationError("--device-guid takes a UUID or hex bytes, not '\(deviceGUID)'.")
        }
    }

    func run() throws {
        // Setting up verification (OpenSSL's first use, the root) and listing the inputs take
        // about a millisecond and a half each, before any receipt: on two processors they overlap.
        let (made, sources) = Workers.together({ Result(catching: makeSettings) }, { Inputs.collect(paths: files, jsonl: jsonl) })
        let settings = try made.get()
        let progress = Progress(total: sources.count)
        let onTerminal = isatty(STDOUT_FILENO) == 1
        let style = Style(enabled: !noColor && onTerminal && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
        let layout: JSONWriter.Layout = switch jsonLayout {
        case .indented: .indented
        case .compact: .compact
        case .auto: onTerminal ? .indented : .compact
        }
        let renderer = Renderer(format: format, style: style, showDetails: certs,
                                statusTime: settings.statusTime,
                                expectedEnvironment: settings.expectedEnvironment,
                                jsonLayout: layout, nestedInArray: sources.count != 1)
        // Each receipt is read, verified, decoded and rendered on the core that takes it; the
        // main thread keeps only the text and what the totals need.
        let outcomes = Workers.map(sources) { source in
            let outcome = Outcome(DumpResult.make(name: source.name, loaded: source.load(name: source.name), settings: settings), renderer)
            progress.advance()
            return outcome
        }
        progress.finish()

        renderer.write(outcomes.lazy.map(\.output))
        if outcomes.count > 1 {
            StandardStreams.writeError(Totals(outcomes).line)
        }
        let status = outcomes.map(\.exitStatus).max() ?? 0
        if status != 0 { throw ExitCode(status) }
    }

    private func makeSettings() throws -> DumpSettings {
        var settings = DumpSettings()
        settings.productFilter = product.map(ExactIdentifier.init)
        settings.transactionFilter = transaction.map(ExactIdentifier.init)
        settings.activeAt = activeAt.flatMap(RFC3339.date(from:))
        settings.statusTime = settings.activeAt ?? trust.instant ?? Date()
        settings.expectations = AcceptanceExpectations(bundleIDs: bundleID.map { [ExactIdentifier($0)] } ?? [],
                                                       environment: environment?.environment, appAppleID: appAppleID)
        settings.expectedAppVersion = appVersion.map(ExactIdentifier.init)
        settings.deviceIdentifier = deviceGUID.flatMap { text in DeviceIdentifier.parse(text).map { (text, $0) } }
        settings.wantsCertificates = format == .text || format == .json
        settings.wantsCertificateDetails = certs
        settings.wantsInAppPurchases = format != .summary
        if let credited {
            do {
                settings.credited = try CreditedList.read(credited)
            } catch let problem as Problem {
                throw ValidationError("--credited: " + DisplayText.escape(problem.reason, limit: DisplayText.reasonLimit))
            }
        }
        if !noVerify { settings.verifier = try trust.makeVerifier() }
        settings.signedDataVerifier = try trust.makeSignedDataVerifier(expectations: settings.expectations)
        return settings
    }
}
