#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// A requested check and its outcome.
package struct CheckResult: Sendable {
    package let name: String
    package let passed: Bool
    package let detail: String
}

/// Transactions the receipt and the server's credited list disagree on.
package struct Reconciliation: Sendable {
    /// In the receipt, not yet credited: the "missed orders".
    package let notCredited: [String]
    /// Credited, but not in this receipt.
    package let notInReceipt: [String]
}

/// Everything receipt-dump learned about one input: a receipt, or StoreKit 2 tokens.
///
/// Its JSON is `--format json`'s, written by ``write(to:)`` (JSONReport.swift); `Encodable`
/// replays that text, for receipts and tokens alike.
public struct DumpResult: Encodable, Sendable {
    package let file: String
    /// Why the receipt could not be read or decoded, if it could not.
    package var readError: Problem?
    /// The receipt, its in-app purchases narrowed by the filters; none when the settings do
    /// not keep them (``DumpSettings/keepsInAppPurchases``), as for a summary.
    package var receipt: Receipt?
    /// How many in-app purchases the receipt has before filtering.
    package var totalInAppPurchases = 0
    /// How many in-app purchases are shown: those the filters leave, kept or only counted.
    package var shownInAppPurchases = 0
    /// nil when verification was not asked for.
    package var verification: Result<VerificationReport, Problem>?
    package var verifiedReceipt: VerifiedReceipt?
    package var certificates: [CertificateSummary] = []
    package var certificateDetails: [CertificateDetails]?
    package var checks: [CheckResult] = []
    /// Why a verified receipt is not accepted: the library's refusal by the expectations
    /// (`--bundle-id`, `--environment`, `--app-apple-id`), as receipt-server answers it.
    package var refusal: Problem?
    package var reconciliation: Reconciliation?
    /// StoreKit 2 tokens, when the input held signed data instead of a receipt.
    package var tokens: [SignedDataInspection]?
    /// False with `--no-verify`: the tokens' verdicts are not reported.
    package var tokensVerified = true
    /// `--at`: the instant the tokens' certificates were judged at instead of their signed dates.
    package var tokensJudgedAt: Date?
    /// The subscriptions and non-consumables the verified tokens describe, at the settings'
    /// status time; nil when they describe none.
    package var subscriptions: (at: Date, entries: [SubscriptionState])?

    /// Reads, verifies (when the settings have a verifier), decodes and checks one input named
    /// `name`, as loaded.
    public static func make(name: String, loaded: Result<[UInt8], Problem>, settings: DumpSettings) -> DumpResult {
        var result = DumpResult(file: name)
        let input: [UInt8]
        switch loaded {
        case .failure(let problem):
            result.readError = problem
            return result
        case .success(let bytes):
            input = bytes
        }
        if SignedDataInput.isSignedData(input) {
            return makeSignedData(name: name, input: input, settings: settings)
        }
        let inspection = ReceiptInspection.inspect(
            input, verifier: settings.verifier,
            options: InspectionOptions(decodesUnverified: true, summarizesCertificates: settings.wantsCertificates,  // a support tool shows what a forgery claims
                                       keepsInAppPurchases: settings.keepsInAppPurchases))
        result.certificates = inspection.certificates
        if settings.wantsCertificateDetails { result.certificateDetails = inspection.container?.certificateDetails() }
        result.verification = inspection.verification?.mapError(Problem.init)
        result.readError = inspection.readError.map(Problem.init)
        guard let decoded = inspection.receipt else { return result }
        result.checks = checks(of: decoded, settings)
        if let credited = settings.credited {
            let ids = decoded.inAppPurchases.compactMap { $0.transactionID.map(ExactIdentifier.init) }
            let inReceipt = Set(ids)
            result.reconciliation = Reconciliation(
                notCredited: ids.filter { !credited.contains($0) }.map(\.text),
                notInReceipt: credited.subtracting(inReceipt).sorted().map(\.text))
        }
        var shown = decoded
        if settings.narrowsPurchases {
            shown.inAppPurchases = decoded.inAppPurchases.filter { purchase in
                let (transaction, original) = (purchase.transactionID.map(ExactIdentifier.init),
                                               purchase.originalTransactionID.map(ExactIdentifier.init))
                return (settings.productFilter.map { purchase.productID.map(ExactIdentifier.init) == $0 } ?? true)
                    && (settings.transactionFilter.map { transaction == $0 || original == $0 } ?? true)
                    && (settings.activeAt.map { purchase.isActiveSubscription(at: $0) } ?? true)
            }
        }
        result.receipt = shown
        result.totalInAppPurchases = inspection.inAppPurchaseCount
        result.shownInAppPurchases = settings.narrowsPurchases ? shown.inAppPurchases.count : inspection.inAppPurchaseCount
        if case .success(let report)? = result.verification {
            result.verifiedReceipt = VerifiedReceipt(receipt: shown, verification: report)
            result.refusal = settings.expectations.refusal(of: AcceptanceSubject(decoded)).map(Problem.init)
        }
        return result
    }

    private static func checks(of receipt: Receipt, _ settings: DumpSettings) -> [CheckResult] {
        var checks: [CheckResult] = []
        // The library's one rule, as receipt-server applies it and as tokens are held to it.
        for check in settings.expectations.checks(of: AcceptanceSubject(receipt)) {
            checks.append(CheckResult(name: check.name, passed: check.outcome != .failed,
                                      detail: check.detail + (check.outcome == .notApplicable ? " (not applicable)" : "")))
        }
        if let expected = settings.expectedAppVersion {
            checks.append(identifierCheck("app-version", expected: expected, found: receipt.applicationVersion))
        }
        if let device = settings.deviceIdentifier {
            let passed = receipt.isIssued(toDevice: device.bytes)
            checks.append(CheckResult(name: "device-guid", passed: passed,
                                      detail: passed ? "SHA-1 hash matches device \(device.text)"
                                                     : "SHA-1 hash does not match device \(device.text)"))
        }
        return checks
    }

    /// A byte-for-byte comparison. When the two only look alike (canonically equal, other
    /// bytes), the detail shows both in UTF-8 hex, since printed they are the same.
    private static func identifierCheck(_ name: String, expected: ExactIdentifier, found: String?) -> CheckResult {
        let passed = found.map(ExactIdentifier.init) == expected
        var detail = "expected \(expected), receipt has \(found ?? "none")"
        if !passed, let found, found == expected.text {
            detail += " (same text, other bytes: expected UTF-8 \(ByteString(Array(expected.text.utf8)).hex), receipt has \(ByteString(Array(found.utf8)).hex))"
        }
        return CheckResult(name: name, passed: passed, detail: detail)
    }

    /// 0 verified (or decoded, without verification) and every check passed; 1 not verified
    /// or a check failed; 2 unreadable (and not refused by verification).
    public var exitStatus: Int32 {
        if tokens != nil { return tokensExitStatus }
        // Not verified before unreadable: the payload of a receipt that did not verify is
        // shown, never the verdict ("Unreadable or not verified" in the library's docs).
        if case .failure = verification { return 1 }
        if readError != nil { return 2 }
        return checks.allSatisfy(\.passed) ? 0 : 1
    }

    /// The reason to show: the verification error, else the read error.
    package var problem: Problem? {
        if tokens != nil { return tokensProblem }
        if case .failure(let error) = verification { return error }
        if let readError { return readError }
        return refusal
    }

    package var verdict: Verdict {
        if tokens != nil { return tokensVerdict }
        if refusal != nil { return .notAccepted }
        return Verdict(readable: readError == nil, verified: verification.map { (try? $0.get()) != nil })
    }
}
