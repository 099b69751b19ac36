import Foundation
import Testing
import ReceiptParser

/// TestReceipts/fixtures.json (receipts) and TestReceipts/jws/tokens.json (StoreKit 2 tokens and
/// bodies): every generated fixture's expected outcome, declared once beside the code that makes
/// the fixture (TestReceipts/generator) and written by the generator, which also writes
/// TestReceipts/README.md's tables from them. Tests read outcomes here instead of repeating them;
/// this is the one reader of both files.
public struct FixtureManifest: Decodable, Sendable {
    /// A trust configuration the verdicts are given under.
    public struct Trust: Decodable, Sendable {
        /// How the README names it.
        public let label: String
        /// App Store rules anchored at this root (a path under TestReceipts/).
        public let root: String?
        /// StoreKit Testing mode with this certificate (a path under TestReceipts/).
        public let storeKitCertificate: String?
        public let requireSHA256: Bool?
        /// The validation time instead of the receipt's creation date (RFC 3339).
        public let at: String?

        /// The certificate a verified chain must end at: the root or the StoreKit certificate;
        /// nil for Apple's roots.
        public var anchorFile: String? { root ?? storeKitCertificate }

        /// The configuration in the words of receipt-dump's and receipt-server's command lines,
        /// paths absolute.
        public var arguments: [String] {
            var arguments: [String] = []
            if let root { arguments += ["--root", FixtureManifest.path(root)] }
            if let storeKitCertificate { arguments += ["--storekit-testing", FixtureManifest.path(storeKitCertificate)] }
            if requireSHA256 == true { arguments.append("--require-sha256") }
            if let at { arguments += ["--at", at] }
            return arguments
        }

        /// A new verifier for this configuration.
        public func verifier(chainCacheCapacity: Int = ReceiptVerifier.defaultChainCacheCapacity) throws -> ReceiptVerifier {
            let anchor: TrustAnchor
            if let root {
                anchor = try .appStore(rootCertificate: FixtureManifest.bytes(root))
            } else if let storeKitCertificate {
                anchor = try .storeKitTesting(certificate: FixtureManifest.bytes(storeKitCertificate))
            } else {
                anchor = .appleIncRoot
            }
            let time: VerificationPolicy.ValidationTime = try at.map { .instant(try #require(RFC3339.date(from: $0))) }
                ?? .receiptCreationDate
            return ReceiptVerifier(anchor: anchor, policy: VerificationPolicy(requiresSHA256: requireSHA256 ?? false,
                                                                              validationTime: time),
                                   chainCacheCapacity: chainCacheCapacity)
        }
    }

    /// A decoded value the manifest expects: text, a count, or an absent attribute.
    public enum Value: Decodable, Sendable, Equatable, CustomStringConvertible {
        case text(String)
        case count(Int)
        case absent

        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .absent
            } else if let count = try? container.decode(Int.self) {
                self = .count(count)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        public var description: String {
            switch self {
            case .text(let text): DisplayText.escape(text)
            case .count(let count): "\(count)"
            case .absent: "absent"
            }
        }

        /// The value `key` (a Swift property name) of `receipt`, or nil for a key no test knows.
        public static func of(_ key: String, in receipt: Receipt) -> Value? {
            switch key {
            case "bundleID": receipt.bundleID.map(Value.text) ?? .absent
            case "receiptType": receipt.receiptType.map(Value.text) ?? .absent
            case "environment": .text(receipt.environment.rawValue)
            case "inAppPurchases": .count(receipt.inAppPurchases.count)
            default: nil
            }
        }
    }

    /// One fixture and its outcome.
    public struct Fixture: Decodable, Sendable, CustomTestStringConvertible {
        /// The path under TestReceipts/: `receipts/NAME` or `hostile/NAME`.
        public let file: String
        /// Verdict by trust configuration: `verified` or a ReceiptError code name.
        public let verdicts: [String: String]
        /// The payload decoder's own verdict when the payload is what is wrong.
        public let decoder: String?
        /// Decoded values that hold under every configuration that verifies the fixture.
        public let receipt: [String: Value]?

        public var testDescription: String { file }

        public func bytes() throws -> [UInt8] { try FixtureManifest.bytes(file) }
    }

    /// One case of TestReceipts/jws/tokens.json: a token (or body) under `jws/`, the options of
    /// one run, and the outcome the generator declared beside the file's builder.
    public struct TokenCase: Decodable, Sendable, CustomTestStringConvertible {
        /// The path under TestReceipts/jws/.
        public let file: String
        /// `token` (a compact JWS) or `body` (JSON holding signed members).
        public let input: String
        /// What the token is, or what the body's first member holds: `transaction`,
        /// `renewalInfo`, `appTransaction`, `notification`; nil when it cannot be told.
        public let kind: String?
        /// The run's options as receipt-dump's words take them: `storekit_testing` is `true`,
        /// numbers (an App Apple ID) keep their digits.
        public let options: [String: String]
        /// receipt-dump's exit status: 0 verified, 1 a rule broken, 2 unreadable.
        public let exitStatus: Int32
        /// The code the manifest records first, then the other defects a multi-defect token also has;
        /// empty when the case verifies.
        public let errors: [String]

        private enum CodingKeys: String, CodingKey {
            case file, input, kind, options, error
            case exitStatus = "exit_status"
            case otherErrors = "other_errors"
        }

        /// An option's JSON value: text, a number or a flag.
        private enum OptionValue: Decodable {
            case text(String)
            case number(Int)
            case flag(Bool)

            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let flag = try? container.decode(Bool.self) {
                    self = .flag(flag)
                } else if let number = try? container.decode(Int.self) {
                    self = .number(number)
                } else {
                    self = .text(try container.decode(String.self))
                }
            }

            var text: String {
                switch self {
                case .text(let text): text
                case .number(let number): "\(number)"
                case .flag(let flag): "\(flag)"
                }
            }
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            file = try container.decode(String.self, forKey: .file)
            input = try container.decode(String.self, forKey: .input)
            kind = try container.decodeIfPresent(String.self, forKey: .kind)
            options = try container.decode([String: OptionValue].self, forKey: .options).mapValues(\.text)
            exitStatus = try container.decode(Int32.self, forKey: .exitStatus)
            let first = try container.decodeIfPresent(String.self, forKey: .error)
            let others = try container.decodeIfPresent([String].self, forKey: .otherErrors) ?? []
            errors = (first.map { [$0] } ?? []) + others
        }

        /// The run's options in the words of receipt-dump's and receipt-server's command lines, paths
        /// absolute: the JWS test root unless the case names another anchor.
        public var arguments: [String] {
            var arguments = options["storekit_testing"] == "true" ? ["--storekit-testing", FixtureManifest.path("pki/jws-storekit.der")]
                                                                  : ["--root", FixtureManifest.path(options["root"] ?? "pki/jws-root.der")]
            if let at = options["at"] { arguments += ["--at", at] }
            if let bundleID = options["expect_bundle_id"] { arguments += ["--bundle-id", bundleID] }
            if let environment = options["expect_environment"] { arguments += ["--environment", environment.lowercased()] }
            if let appAppleID = options["expect_app_apple_id"] { arguments += ["--app-apple-id", appAppleID] }
            return arguments
        }

        public var testDescription: String {
            "\(file) \(options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        }
    }

    /// Every case of TestReceipts/jws/tokens.json, for `@Test(arguments:)`; empty if it does not
    /// load (which `SignedDataFixtureTests.theManifestCoversEveryRule` reports).
    public static let tokenCases: [TokenCase] = (try? JSONDecoder().decode(
        [TokenCase].self, from: Data(contentsOf: Paths.fixtures.appendingPathComponent("jws/tokens.json")))) ?? []

    /// The word for a verified fixture.
    public let verified: String
    /// The key of App Store rules anchored at the test root, the configuration most verdicts are under.
    public static let appStore = "appStore"
    public let trust: [String: Trust]
    public let fixtures: [Fixture]

    public static let loaded = Result { try JSONDecoder().decode(FixtureManifest.self, from: Data(contentsOf: url)) }
    public static let url = Paths.fixtures.appendingPathComponent("fixtures.json")

    public static func load() throws -> FixtureManifest { try loaded.get() }

    /// Every fixture, for `@Test(arguments:)`; empty if the manifest does not load (which
    /// `FixtureTests.everyGeneratedFileIsInTheManifest` reports).
    public static var fixtures: [Fixture] { (try? load().fixtures) ?? [] }

    public static func fixture(_ file: String) throws -> Fixture {
        try #require(try load().fixtures.first { $0.file == file }, "\(file) is not in fixtures.json")
    }

    /// The absolute path of `path`, a path under TestReceipts/.
    public static func path(_ path: String) -> String { Paths.fixtures.appendingPathComponent(path).path }

    public static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent(path)))
    }

    /// What `body` gives, in the manifest's words: `verified` or the ReceiptError code name.
    public func verdict<T>(_ body: () throws(ReceiptError) -> T) -> (verdict: String, value: T?) {
        do throws(ReceiptError) {
            return (verified, try body())
        } catch {
            return (error.code.name, nil)
        }
    }
}
