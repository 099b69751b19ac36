#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// What receipt-dump is asked to do with each receipt, beyond reading it.
public struct DumpSettings: Sendable {
    /// `--bundle-id`, `--environment` and `--app-apple-id`: what receipts and tokens alike are
    /// held to, by the library's one rule (``AcceptanceExpectations/checks(of:)``). Give the
    /// signed-data verifier the same value.
    public var expectations = AcceptanceExpectations()
    /// `--environment`: the environment a verifyreceipt answer expects.
    public var expectedEnvironment: Environment? { expectations.environment }
    /// Nil with `--no-verify`.
    public var verifier: ReceiptVerifier?
    /// Reads and verifies StoreKit 2 tokens, with the expectations (`--bundle-id`,
    /// `--environment`, `--app-apple-id`); with `--no-verify` its verdicts are not reported.
    public var signedDataVerifier = SignedDataVerifier()
    // Identifiers match byte for byte: a bundle id that merely looks the same must fail.
    package var productFilter: ExactIdentifier?
    package var transactionFilter: ExactIdentifier?
    package var activeAt: Date?
    /// When statuses are judged (a verifyreceipt answer's, tokens' subscriptions): `--active-at`,
    /// else `--at`, else the run's start.
    package var statusTime = Date()
    package var expectedAppVersion: ExactIdentifier?
    package var deviceIdentifier: (text: String, bytes: [UInt8])?
    package var credited: Set<ExactIdentifier>?
    /// Whether the output shows the receipt's certificates (text and JSON do); a summary line
    /// does not, and a batch should not pay for them.
    public var wantsCertificates = true
    /// `--certs`.
    public var wantsCertificateDetails = false
    /// Whether the output shows the in-app purchases themselves; a summary line shows their
    /// number, and a batch should not pay for making the rest. Filters and the credited list
    /// need them whatever the output.
    public var wantsInAppPurchases = true

    /// No verification, no filters, no checks.
    public init() {}

    /// Whether any filter narrows the in-app purchases shown.
    package var narrowsPurchases: Bool { productFilter != nil || transactionFilter != nil || activeAt != nil }

    /// Whether the in-app purchases must be kept: the output shows them, or a filter or the
    /// credited list reads them.
    package var keepsInAppPurchases: Bool { wantsInAppPurchases || narrowsPurchases || credited != nil }
}
