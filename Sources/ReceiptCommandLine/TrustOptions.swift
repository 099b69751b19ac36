import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The options that say which receipts a command trusts, declared once for receipt-dump and
/// receipt-server (`@OptionGroup var trust: TrustOptions<...>`): the anchor (`--root`,
/// `--storekit-testing`), the digest policy (`--require-sha256`) and the instant certificates
/// are judged at (`--at`), with their validation, and the ``ReceiptVerifier`` they make.
///
/// `Defaults` names the environment variables that may set them (receipt-server's
/// `RECEIPT_SERVER_*`); receipt-dump has none.
public struct TrustOptions<Defaults: EnvironmentDefaults>: ParsableArguments, Sendable {
    // What the command line gave; the public properties below fall back on the environment.
    @Option(name: .customLong("root"), help: ArgumentHelp(
        "Trust this root (DER or PEM) instead of Apple Inc. Root (receipts) and Apple Root CA - G3 (StoreKit 2 tokens); Apple's chain rules still apply" + Defaults.note("ROOT") + ".",
        valueName: "CERT"))
    var rootArgument: String?

    @Option(name: .customLong("storekit-testing"), help: ArgumentHelp(
        "Verify Xcode StoreKit Testing receipts and tokens signed by this certificate (DER or PEM), exported from Xcode" + Defaults.note("STOREKIT_TESTING") + ".",
        valueName: "CERT"))
    var storeKitTestingArgument: String?

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "Judge certificates at this RFC 3339 instant instead of the receipt's creation date or the token's signed date; also the instant for subscription status" + Defaults.note("AT") + ".",
        valueName: "RFC3339"))
    var atArgument: String?

    @Flag(name: .customLong("require-sha256"), help: ArgumentHelp(
        "Reject SHA-1 in the receipt signature and the certificate chain" + Defaults.note("REQUIRE_SHA256", value: "1") + "."))
    var requireSHA256Argument = false

    /// `--root`: the path of a root certificate to trust under Apple's chain rules.
    public var root: String? { rootArgument ?? Defaults.value("ROOT") }
    /// `--storekit-testing`: the path of Xcode's StoreKit Testing certificate.
    public var storeKitTesting: String? { storeKitTestingArgument ?? Defaults.value("STOREKIT_TESTING") }
    /// `--at`, as given.
    public var at: String? { atArgument ?? Defaults.value("AT") }
    /// `--require-sha256`.
    public var requireSHA256: Bool {
        requireSHA256Argument || Defaults.value("REQUIRE_SHA256").map { ["1", "true", "yes"].contains($0.lowercased()) } == true
    }

    /// The options as declared, for ArgumentParser to fill in.
    public init() {}

    /// Refuses combinations no verifier can be made from (both anchors at once, an `--at` that
    /// is no RFC 3339 instant), so both tools report them as usage errors (exit 64).
    public func validate() throws {
        if root != nil && storeKitTesting != nil {
            throw ValidationError("--root and --storekit-testing exclude each other.")
        }
        if let at { _ = try RFC3339.instant(at, option: "--at") }
    }

    /// `--at`: the instant certificates are judged at, nil for each receipt's creation date.
    public var instant: Date? { at.flatMap(RFC3339.date(from:)) }

    /// Whether an option that only verification uses is given: all but `--at`, which is also
    /// the instant for subscription status (receipt-dump's `--no-verify` excludes the others).
    public var configuresVerification: Bool { root != nil || storeKitTesting != nil || requireSHA256 }

    /// The verifier these options describe: its anchor, its policy and its own chain cache.
    /// Reads the certificate file, so a usage error can still come from here.
    public func makeVerifier() throws -> ReceiptVerifier {
        var policy = VerificationPolicy(requiresSHA256: requireSHA256)
        if let instant { policy.validationTime = .instant(instant) }
        do {
            if let root {
                return ReceiptVerifier(anchor: try .appStore(rootCertificate: try Self.read(root)), policy: policy)
            }
            if let storeKitTesting {
                return ReceiptVerifier(anchor: try .storeKitTesting(certificate: try Self.read(storeKitTesting)), policy: policy)
            }
        } catch let error as ReceiptError {
            throw ValidationError("cannot use the certificate: " + DisplayText.escape(error.reason, limit: DisplayText.reasonLimit))
        }
        return ReceiptVerifier(policy: policy)
    }

    /// The StoreKit 2 verifier these options describe: the same anchor options (`--root` for
    /// both kinds of data, Apple Root CA - G3 by default instead of Apple Inc. Root), the same
    /// instant, and the app the tokens must be for.
    public func makeSignedDataVerifier(expectations: AcceptanceExpectations = AcceptanceExpectations()) throws -> SignedDataVerifier {
        var policy = VerificationPolicy(requiresSHA256: requireSHA256)
        if let instant { policy.validationTime = .instant(instant) }
        do {
            if let root {
                return SignedDataVerifier(anchor: try .appStore(rootCertificate: try Self.read(root)), policy: policy, expectations: expectations)
            }
            if let storeKitTesting {
                return SignedDataVerifier(anchor: try .storeKitTesting(certificate: try Self.read(storeKitTesting)), policy: policy, expectations: expectations)
            }
        } catch let error as ReceiptError {
            throw ValidationError("cannot use the certificate: " + DisplayText.escape(error.reason, limit: DisplayText.reasonLimit))
        }
        return SignedDataVerifier(policy: policy, expectations: expectations)
    }

    private static func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read \(path)")
        }
        return [UInt8](data)
    }
}

extension RFC3339 {
    /// The instant `text` names, or the usage error for the command-line `option` it was given to.
    public static func instant(_ text: String, option: String) throws -> Date {
        guard let date = date(from: text) else {
            throw ValidationError("\(option) takes an RFC 3339 time such as 2024-05-01T12:00:00Z, not '\(text)'.")
        }
        return date
    }
}
