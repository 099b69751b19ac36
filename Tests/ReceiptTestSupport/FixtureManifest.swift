import Foundation
import Testing
import ReceiptParser

/// TestReceipts/cases.json: every generated fixture's expected outcomes, receipts and StoreKit 2
/// tokens and bodies in one schema, declared once beside the code that makes each fixture
/// (TestReceipts/generator) and written by the generator, which also writes TestReceipts/README.md's
/// tables from it. Tests read outcomes here instead of repeating them; this is the one reader.
///
/// The file is `{"about": …, "cases": [case, …]}`; each case (``FixtureCase``) is one run of one
/// file, in receipt-dump's words:
///
/// - `file`: a path under TestReceipts/ (`receipts/`, `hostile/` or `jws/`); `description`: what it is.
/// - `input`: `receipt`, `token` or `body`; `kind` and `members` (tokens and bodies only): what the
///   payload is, and each signed member of a body with the kind of token it holds.
/// - `options`: the run's options (``FixtureCase/Options``): `root`, `storekit_testing`,
///   `require_sha256`, `at`, `bundle_id`, `environment`, `app_apple_id` as receipt-dump's flags take
///   them, and `as_kind` (library only). The trust is always given: neither `root` nor
///   `storekit_testing` means Apple's roots.
/// - `exit_status`: receipt-dump's exit status (0 verified, 1 not verified, 2 unreadable);
///   `error`: the ReceiptError code name, `null` when verified; `other_errors`: the codes a
///   multi-defect token may give instead.
/// - Optional: `decoder` (receipts: the payload decoder's own code), `receipt` (receipts, on
///   cases that verify: decoded values by Swift property name), `decoded` (tokens: payload members
///   as the JSON output writes them; not read here), `note`.
///
/// Use ``cases`` (or ``receiptCases`` / ``tokenCases``) for `@Test(arguments:)`, ``load()`` to
/// report a manifest that does not load, and ``FixtureCase/Options/arguments`` or
/// ``FixtureCase/Options/verifier(chainCacheCapacity:)`` to run a case.
public enum FixtureManifest {
    public static let url = Paths.fixtures.appendingPathComponent("cases.json")

    private struct File: Decodable {
        let cases: [FixtureCase]
    }

    public static let loaded = Result { try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).cases }

    /// Every case, or the reason the manifest does not load.
    public static func load() throws -> [FixtureCase] { try loaded.get() }

    /// Every case, for `@Test(arguments:)`; empty if the manifest does not load (which
    /// `FixtureTests.everyGeneratedFileIsInTheManifest` reports).
    public static var cases: [FixtureCase] { (try? load()) ?? [] }

    /// The cases of receipts (`receipts/` and `hostile/`).
    public static var receiptCases: [FixtureCase] { cases.filter { $0.input == .receipt } }

    /// The cases of StoreKit 2 tokens and bodies (`jws/`).
    public static var tokenCases: [FixtureCase] { cases.filter { $0.input != .receipt } }

    /// The first case of `file` (a path under TestReceipts/): for a receipt, its verdict under App
    /// Store rules with the test root, which the README calls the headline.
    public static func headline(_ file: String) throws -> FixtureCase {
        try #require(try load().first { $0.file == file }, "\(file) is not in cases.json")
    }

    public static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent(path)))
    }

    /// What `body` gives, in the manifest's words: nil when verified, else the ReceiptError code name.
    public static func outcome<T>(_ body: () throws(ReceiptError) -> T) -> (error: String?, value: T?) {
        do throws(ReceiptError) {
            return (nil, try body())
        } catch {
            return (error.code.name, nil)
        }
    }
}

/// One case of TestReceipts/cases.json: a file, the options of one run and the outcome it must
/// give (see ``FixtureManifest`` for the schema).
public struct FixtureCase: Decodable, Sendable, CustomTestStringConvertible {
    /// What the file holds.
    public enum Input: String, Decodable, Sendable {
        /// A receipt in any form receipt-dump reads: DER, base64, a verifyReceipt body.
        case receipt
        /// A compact JWS.
        case token
        /// JSON holding tokens.
        case body
    }

    /// The options of one run, as receipt-dump's flags take them (`as_kind` excepted).
    public struct Options: Decodable, Sendable, Equatable {
        /// `--root`: App Store rules anchored at this root (a path under TestReceipts/).
        public var root: String?
        /// `--storekit-testing`: StoreKit Testing mode with this certificate (a path under TestReceipts/).
        public var storeKitTesting: String?
        /// `--require-sha256`.
        public var requireSHA256 = false
        /// `--at`: the validation time instead of the data's own date (RFC 3339).
        public var at: String?
        /// `--bundle-id`.
        public var bundleID: String?
        /// `--environment`: `production`, `sandbox` or `xcode`.
        public var environment: String?
        /// `--app-apple-id`.
        public var appAppleID: Int64?
        /// The kind of token the library is asked for (`verifyTransaction`, …); receipt-dump has no flag.
        public var asKind: String?

        private enum CodingKeys: String, CodingKey {
            case root, at, environment
            case storeKitTesting = "storekit_testing"
            case requireSHA256 = "require_sha256"
            case bundleID = "bundle_id"
            case appAppleID = "app_apple_id"
            case asKind = "as_kind"
        }

        public init(root: String? = nil, storeKitTesting: String? = nil, requireSHA256: Bool = false, at: String? = nil,
                     bundleID: String? = nil, environment: String? = nil, appAppleID: Int64? = nil, asKind: String? = nil) {
            (self.root, self.storeKitTesting, self.requireSHA256, self.at) = (root, storeKitTesting, requireSHA256, at)
            (self.bundleID, self.environment, self.appAppleID, self.asKind) = (bundleID, environment, appAppleID, asKind)
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(root: try container.decodeIfPresent(String.self, forKey: .root),
                      storeKitTesting: try container.decodeIfPresent(String.self, forKey: .storeKitTesting),
                      requireSHA256: try container.decodeIfPresent(Bool.self, forKey: .requireSHA256) ?? false,
                      at: try container.decodeIfPresent(String.self, forKey: .at),
                      bundleID: try container.decodeIfPresent(String.self, forKey: .bundleID),
                      environment: try container.decodeIfPresent(String.self, forKey: .environment),
                      appAppleID: try container.decodeIfPresent(Int64.self, forKey: .appAppleID),
                      asKind: try container.decodeIfPresent(String.self, forKey: .asKind))
        }

        /// receipt-dump's arguments for these options (`as_kind` has none).
        public var arguments: [String] {
            var arguments: [String] = []
            if let root { arguments += ["--root", root] }
            if let storeKitTesting { arguments += ["--storekit-testing", storeKitTesting] }
            if requireSHA256 { arguments.append("--require-sha256") }
            if let at { arguments += ["--at", at] }
            if let bundleID { arguments += ["--bundle-id", bundleID] }
            if let environment { arguments += ["--environment", environment] }
            if let appAppleID { arguments += ["--app-apple-id", "\(appAppleID)"] }
            return arguments
        }

        /// The certificate a verified chain must end at: the root or the StoreKit certificate;
        /// nil for Apple's roots.
        public var anchorFile: String? { root ?? storeKitTesting }

        /// The trust anchor of these options.
        public func anchor() throws -> TrustAnchor {
            if let root { return try .appStore(rootCertificate: FixtureManifest.bytes(root)) }
            if let storeKitTesting { return try .storeKitTesting(certificate: FixtureManifest.bytes(storeKitTesting)) }
            return .appleIncRoot
        }

        /// The verification policy of these options.
        public func policy() throws -> VerificationPolicy {
            let time: VerificationPolicy.ValidationTime = try at.map { .instant(try #require(RFC3339.date(from: $0))) }
                ?? .signedDate
            return VerificationPolicy(requiresSHA256: requireSHA256, validationTime: time)
        }

        /// A new receipt verifier for these options (the trust ones; the expectations are not applied).
        public func verifier(chainCacheCapacity: Int = ReceiptVerifier.defaultChainCacheCapacity) throws -> ReceiptVerifier {
            ReceiptVerifier(anchor: try anchor(), policy: try policy(), chainCacheCapacity: chainCacheCapacity)
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

    /// The path under TestReceipts/.
    public let file: String
    public let input: Input
    /// What the payload is (tokens and bodies; nil for none and for receipts).
    public let kind: String?
    public let options: Options
    /// receipt-dump's exit status: 0 verified, 1 not verified, 2 unreadable.
    public let exitStatus: Int32
    /// The ReceiptError code name the case must give; nil when it verifies.
    public let error: String?
    /// The other defects a multi-defect token also has (another check order gives them first).
    public let otherErrors: [String]
    /// Receipts: the payload decoder's own code when the payload is what is wrong.
    public let decoder: String?
    /// Receipts, on cases that verify: decoded values by Swift property name.
    public let receipt: [String: Value]?

    private enum CodingKeys: String, CodingKey {
        case file, input, kind, options, error, decoder, receipt
        case exitStatus = "exit_status"
        case otherErrors = "other_errors"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        file = try container.decode(String.self, forKey: .file)
        input = try container.decode(Input.self, forKey: .input)
        kind = try container.decodeIfPresent(String.self, forKey: .kind)
        options = try container.decode(Options.self, forKey: .options)
        exitStatus = try container.decode(Int32.self, forKey: .exitStatus)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        otherErrors = try container.decodeIfPresent([String].self, forKey: .otherErrors) ?? []
        self.decoder = try container.decodeIfPresent(String.self, forKey: .decoder)
        receipt = try container.decodeIfPresent([String: Value].self, forKey: .receipt)
    }

    /// The code the case records first, then its other defects; empty when it verifies.
    public var errors: [String] { (error.map { [$0] } ?? []) + otherErrors }

    public func bytes() throws -> [UInt8] { try FixtureManifest.bytes(file) }

    public var testDescription: String {
        ([file] + options.arguments + (options.asKind.map { ["as", $0] } ?? [])).joined(separator: " ")
    }
}
