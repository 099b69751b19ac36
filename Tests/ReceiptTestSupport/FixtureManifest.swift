import Foundation
import Testing
import ReceiptParser

/// TestReceipts/fixtures.json (receipts) and TestReceipts/jws/tokens.json (StoreKit 2 tokens and
/// bodies): every generated fixture's expected outcome, declared once beside the code that makes
/// the fixture (TestReceipts/generator) and written by the generator, which also writes
/// TestReceipts/README.md's tables from them. Tests read outcomes here instead of repeating them;
/// this is the one reader of both files.
package struct FixtureManifest: Decodable, Sendable {
    /// A trust configuration the verdicts are given under.
    package struct Trust: Decodable, Sendable {
        /// How the README names it.
        package let label: String
        /// App Store rules anchored at this root (a path under TestReceipts/).
        package let root: String?
        /// StoreKit Testing mode with this certificate (a path under TestReceipts/).
        package let storeKitCertificate: String?
        package let requireSHA256: Bool?
        /// The validation time instead of the receipt's creation date (RFC 3339).
        package let at: String?

        /// The certificate a verified chain must end at: the root or the StoreKit certificate;
        /// nil for Apple's roots.
        package var anchorFile: String? { root ?? storeKitCertificate }

        /// A new verifier for this configuration.
        package func verifier(chainCacheCapacity: Int = ReceiptVerifier.defaultChainCacheCapacity) throws -> ReceiptVerifier {
            let anchor: TrustAnchor
            if let root {
                anchor = try .appStore(rootCertificate: FixtureManifest.bytes(root))
            } else if let storeKitCertificate {
                anchor = try .storeKitTesting(certificate: FixtureManifest.bytes(storeKitCertificate))
            } else {
                anchor = .appleIncRoot
            }
            let time: VerificationPolicy.ValidationTime = try at.map { .instant(try #require(RFC3339.date(from: $0))) }
                ?? .signedDate
            return ReceiptVerifier(anchor: anchor, policy: VerificationPolicy(requiresSHA256: requireSHA256 ?? false,
                                                                              validationTime: time),
                                   chainCacheCapacity: chainCacheCapacity)
        }
    }

    /// A decoded value the manifest expects: text, a count, or an absent attribute.
    package enum Value: Decodable, Sendable, Equatable, CustomStringConvertible {
        case text(String)
        case count(Int)
        case absent

        package init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .absent
            } else if let count = try? container.decode(Int.self) {
                self = .count(count)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        package var description: String {
            switch self {
            case .text(let text): DisplayText.escape(text)
            case .count(let count): "\(count)"
            case .absent: "absent"
            }
        }

        /// The value `key` (a Swift property name) of `receipt`, or nil for a key no test knows.
        package static func of(_ key: String, in receipt: Receipt) -> Value? {
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
    package struct Fixture: Decodable, Sendable, CustomTestStringConvertible {
        /// The path under TestReceipts/: `receipts/NAME` or `hostile/NAME`.
        package let file: String
        /// Verdict by trust configuration: `verified` or a ReceiptError code name.
        package let verdicts: [String: String]
        /// The payload decoder's own verdict when the payload is what is wrong.
        package let decoder: String?
        /// Decoded values that hold under every configuration that verifies the fixture.
        package let receipt: [String: Value]?

        package var testDescription: String { file }

        package func bytes() throws -> [UInt8] { try FixtureManifest.bytes(file) }
    }

    /// One case of TestReceipts/jws/tokens.json: a token (or body) under `jws/`, the options of
    /// one run, and the outcome the generator declared beside the file's builder.
    package struct TokenCase: Decodable, Sendable, CustomTestStringConvertible {
        /// The path under TestReceipts/jws/.
        package let file: String
        /// The run's options as receipt-dump's words take them: `storekit_testing` is `true`,
        /// numbers (an App Apple ID) keep their digits.
        package let options: [String: String]
        /// receipt-dump's exit status: 0 verified, 1 a rule broken, 2 unreadable.
        package let exitStatus: Int32
        /// The code the manifest records first, then the other defects a multi-defect token also has;
        /// empty when the case verifies.
        package let errors: [String]

        private enum CodingKeys: String, CodingKey {
            case file, options, error
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

        package init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            file = try container.decode(String.self, forKey: .file)
            options = try container.decode([String: OptionValue].self, forKey: .options).mapValues(\.text)
            exitStatus = try container.decode(Int32.self, forKey: .exitStatus)
            let first = try container.decodeIfPresent(String.self, forKey: .error)
            let others = try container.decodeIfPresent([String].self, forKey: .otherErrors) ?? []
            errors = (first.map { [$0] } ?? []) + others
        }

        package var testDescription: String {
            "\(file) \(options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        }
    }

    /// Every case of TestReceipts/jws/tokens.json, for `@Test(arguments:)`; empty if it does not
    /// load (which `SignedDataFixtureTests.theManifestCoversEveryRule` reports).
    package static let tokenCases: [TokenCase] = (try? JSONDecoder().decode(
        [TokenCase].self, from: Data(contentsOf: Paths.fixtures.appendingPathComponent("jws/tokens.json")))) ?? []

    /// The word for a verified fixture.
    package let verified: String
    /// The key of App Store rules anchored at the test root, the configuration most verdicts are under.
    package static let appStore = "appStore"
    package let trust: [String: Trust]
    package let fixtures: [Fixture]

    package static let loaded = Result { try JSONDecoder().decode(FixtureManifest.self, from: Data(contentsOf: url)) }
    package static let url = Paths.fixtures.appendingPathComponent("fixtures.json")

    package static func load() throws -> FixtureManifest { try loaded.get() }

    /// Every fixture, for `@Test(arguments:)`; empty if the manifest does not load (which
    /// `FixtureTests.everyGeneratedFileIsInTheManifest` reports).
    package static var fixtures: [Fixture] { (try? load().fixtures) ?? [] }

    package static func fixture(_ file: String) throws -> Fixture {
        try #require(try load().fixtures.first { $0.file == file }, "\(file) is not in fixtures.json")
    }

    package static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent(path)))
    }

    /// What `body` gives, in the manifest's words: `verified` or the ReceiptError code name.
    package func verdict<T>(_ body: () throws(ReceiptError) -> T) -> (verdict: String, value: T?) {
        do throws(ReceiptError) {
            return (verified, try body())
        } catch {
            return (error.code.name, nil)
        }
    }
}
