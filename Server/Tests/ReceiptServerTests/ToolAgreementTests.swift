import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptCommandLine
import ReceiptParser
import ReceiptReports
import ReceiptTestSupport
import Testing
@testable import ReceiptServer
@testable import receipt_server

/// The same body gets the same verdict, the same error code and the same reason from receipt-dump
/// and from receipt-server: every case of TestReceipts/cases.json (each receipt under each trust
/// configuration, tokens and bodies under their options) and every real receipt and token of ../shared/corpus, judged by receipt-dump's
/// code (`DumpResult.make` and its JSON, in process) and by receipt-server's route for it (through
/// Hummingbird's test client), each configured from the same command-line words.
///
/// Each input goes to the route meant for its kind: receipts to `/v1/receipts`; transactions and
/// bodies of transactions (with their renewal info) to `/v1/transactions`; notifications to
/// `/v2/notifications`, a bare notification token as the body Apple posts, `{"signedPayload": …}`,
/// which receipt-dump is given too (that route refuses a bare token unread, by design). Outside
/// every route's purpose, and so not compared (``ToolAgreement/outsideEveryRoute(_:)``): app
/// transactions (the server has no route for them; `/v1/transactions` refuses them as
/// `wrongKind`), renewal info alone (it names no app, so `/v1/transactions` refuses it as
/// `wrongKind` unless its transaction is beside it), a token of no kind, and the cases that ask
/// the library for another kind (`as_kind`: receipt-dump has no option for it).
///
/// One test at a time, each yielding between inputs: both tools verify on the test's own thread,
/// and the suites that time the server (VerificationGateTests) need the others free.
@Suite(.serialized)
struct ToolAgreementTests {
    typealias Case = ToolAgreement.Case

    @Test func everyReceiptFixture() async throws {
        let receipts = FixtureManifest.receiptCases
        var cases = receipts.map { item in
            Case(name: item.testDescription, input: try? item.bytes(), route: "/v1/receipts", options: ToolAgreement.arguments(item.options))
        }
        // The acceptance rule on receipts, under App Store rules at the test root: another app,
        // another environment, another App Apple ID.
        let testRoot = FixtureCase.Options(root: "pki/test-root.der")
        for item in receipts where item.options == testRoot {
            for expectation in [["--bundle-id", "com.example.other"], ["--environment", "production"], ["--app-apple-id", "1"]] {
                cases.append(Case(name: "\(item.testDescription) \(expectation)", input: try? item.bytes(), route: "/v1/receipts",
                                  options: ToolAgreement.arguments(item.options) + expectation))
            }
        }
        #expect(receipts.count >= 60)
        #expect(cases.count >= receipts.count + 3 * 50)
        try await ToolAgreement.check(cases)
    }

    @Test func everyTokenFixture() async throws {
        let all = FixtureManifest.tokenCases
        #expect(all.count >= 200)
        var cases: [Case] = []
        for item in all where !ToolAgreement.outsideEveryRoute(item) {
            let bytes = try item.bytes()
            let notification = item.kind == "notification"
            cases.append(Case(name: item.testDescription, input: notification && item.input == .token ? ToolAgreement.signedPayload(bytes) : bytes,
                              route: notification ? "/v2/notifications" : "/v1/transactions", options: ToolAgreement.arguments(item.options)))
        }
        #expect(cases.count >= 180)
        try await ToolAgreement.check(cases)
    }

    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
    func everyRealReceipt() async throws {
        let folder = Paths.corpus.appendingPathComponent("real")
        let storeKit = ["--storekit-testing", Paths.corpus.appendingPathComponent("certs/StoreKitTestCertificate.der").path]
        var cases: [Case] = []
        for name in try ToolAgreement.files(in: folder, ending: ".receipt") {
            let input = try? Paths.bytes(folder.appendingPathComponent(name))
            let trust = name.hasPrefix("xcode-") ? storeKit : []
            for expectation in [[], ["--environment", "production"], ["--environment", "sandbox"]] {
                cases.append(Case(name: "\(name) \(expectation)", input: input, route: "/v1/receipts", options: trust + expectation))
            }
        }
        #expect(cases.count >= 3 * 40)
        try await ToolAgreement.check(cases)
    }

    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
    func everyRealToken() async throws {
        let jws = Paths.corpus.appendingPathComponent("jws")
        // Each folder's anchor: Apple Root CA - G3 for Apple's own tokens, else the folder's certificate.
        let folders: [(folder: String, trust: [String])] = [
            ("tokens", []),
            ("xcode/tokens", ["--storekit-testing", jws.appendingPathComponent("xcode/StoreKitTestingInXcode.der").path]),
            ("testca/tokens", ["--root", jws.appendingPathComponent("testca/testCA.der").path]),
        ]
        var cases: [Case] = []
        for (folder, trust) in folders {
            for name in try ToolAgreement.files(in: jws.appendingPathComponent(folder), ending: ".jws") {
                // The kind is the file name's second word (sandbox-transaction-…); see the type's comment.
                let kind = name.split(separator: "-").dropFirst().first.map(String.init)
                guard kind == "transaction" || kind == "notification" else { continue }
                let bytes = try Paths.bytes(jws.appendingPathComponent("\(folder)/\(name)"))
                let notification = kind == "notification"
                for expectation in [[], ["--environment", "production"], ["--bundle-id", "com.example.other"]] {
                    cases.append(Case(name: "\(folder)/\(name) \(expectation)", input: notification ? ToolAgreement.signedPayload(bytes) : bytes,
                                      route: notification ? "/v2/notifications" : "/v1/transactions", options: trust + expectation))
                }
            }
        }
        #expect(cases.count >= 3 * 35)
        try await ToolAgreement.check(cases)
    }
}

/// How the two tools are run on one input, and what they are compared on.
enum ToolAgreement {
    /// One input, the route meant for it, and the options both tools are given, in the words of
    /// their command lines (`--root`, `--storekit-testing`, `--require-sha256`, `--at`,
    /// `--bundle-id`, `--environment`, `--app-apple-id`; paths absolute).
    struct Case: Sendable {
        let name: String
        /// nil when the fixture cannot be read (reported, not compared).
        let input: [UInt8]?
        let route: String
        let options: [String]
    }

    /// What a person is told: the verdict, the error code and the reason (receipt-dump's reason
    /// names the body's member at fault first, `member: reason`; receipt-server gives the member
    /// apart, and is read back the same way).
    struct Judgement: Equatable, CustomStringConvertible {
        let verdict: String?
        let code: String?
        let reason: String?

        init(json: [String: Any]) {
            verdict = json["verdict"] as? String
            let error = json["error"] as? [String: Any]
            code = error?["code"] as? String
            reason = (error?["reason"] as? String).map { reason in (error?["member"] as? String).map { "\($0): \(reason)" } ?? reason }
        }

        var description: String { "\(verdict ?? "no verdict") \(code ?? "-") \(reason ?? "-")" }
    }

    /// The cases no route of the server is meant for (see ``ToolAgreementTests``).
    static func outsideEveryRoute(_ item: FixtureCase) -> Bool {
        item.options.asKind != nil || item.kind == nil || item.kind == "appTransaction"
            || (item.kind == "renewalInfo" && item.input == .token)
    }

    /// A case's options in both command lines' words, its certificate paths absolute.
    static func arguments(_ options: FixtureCase.Options) -> [String] {
        var options = options
        options.root = options.root.map { Paths.fixtures.appendingPathComponent($0).path }
        options.storeKitTesting = options.storeKitTesting.map { Paths.fixtures.appendingPathComponent($0).path }
        return options.arguments
    }

    /// The body Apple posts for a notification token: `{"signedPayload": TOKEN}`.
    static func signedPayload(_ token: [UInt8]) -> [UInt8] {
        let text = String(decoding: token, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Array((try? JSONSerialization.data(withJSONObject: ["signedPayload": text])) ?? Data())
    }

    static func files(in folder: URL, ending suffix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(suffix) }.sorted()
    }

    /// receipt-dump under `options`: its settings made once, as its command makes them for a run
    /// (with `--format summary`'s, which skip what only the output shows), then for each input
    /// `DumpResult.make` and the JSON `--format json` prints of it.
    struct ReceiptDump {
        let settings: DumpSettings
        let renderer: Renderer

        init(options: [String]) throws {
            let command = try DumpOptions.parse(options)
            var settings = DumpSettings()
            settings.expectations = AcceptanceExpectations(bundleIDs: command.bundleID.map { [ExactIdentifier($0)] } ?? [],
                                                           environment: command.environment, appAppleID: command.appAppleID)
            settings.wantsCertificates = false
            settings.wantsInAppPurchases = false
            settings.verifier = try command.trust.makeVerifier()
            settings.signedDataVerifier = try command.trust.makeSignedDataVerifier(expectations: settings.expectations)
            self.settings = settings
            renderer = Renderer(format: .json, style: Style(enabled: false), showDetails: false, statusTime: command.trust.instant ?? Date(),
                                expectedEnvironment: settings.expectedEnvironment, jsonLayout: .compact)
        }

        func judge(_ input: [UInt8]) throws -> Judgement {
            let result = DumpResult.make(name: "input", loaded: .success(input), settings: settings)
            let json = try JSONSerialization.jsonObject(with: Data(renderer.render(result).utf8))
            return Judgement(json: try #require(json as? [String: Any]))
        }
    }

    /// receipt-dump's options that decide a judgement (the rest only shape its output).
    struct DumpOptions: ParsableArguments {
        @OptionGroup var trust: TrustOptions<NoEnvironmentDefaults>
        @Option(name: .customLong("bundle-id")) var bundleID: String?
        @Option(transform: { text in
            guard let environment = ["production": ReceiptParser.Environment.production, "sandbox": .sandbox, "xcode": .xcode][text] else {
                throw ValidationError("--environment \(text)")
            }
            return environment
        }) var environment: ReceiptParser.Environment?
        @Option(name: .customLong("app-apple-id")) var appAppleID: Int64?
    }

    /// Both tools on every case, one server per set of options; each disagreement is an issue.
    static func check(_ cases: [Case]) async throws {
        let groups = Dictionary(grouping: cases, by: \.options)
        for (options, group) in groups.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            let dump = try ReceiptDump(options: options)
            let configuration = try ReceiptServerCommand.parse(["--port", "0"] + options).configuration()
            try await buildApplication(configuration, logger: ServerTests.logger).test(.router) { client in
                for item in group {
                    guard let input = item.input else {
                        Issue.record("\(item.name): cannot read the input")
                        continue
                    }
                    let dumped = try dump.judge(input)
                    let server = try await client.execute(uri: item.route, method: .post, body: ByteBuffer(bytes: input)) { response in
                        Judgement(json: try ServerTests().object(response.body))
                    }
                    await Task.yield()
                    #expect(dumped == server, "\(item.name) on \(item.route)\n  receipt-dump:   \(dumped)\n  receipt-server: \(server)")
                }
            }
        }
    }
}
