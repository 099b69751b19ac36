#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// What receipt-dump is asked to do with each receipt, beyond reading it.
struct DumpSettings: Sendable {
    var expectedEnvironment: Environment?
    var verifier: ReceiptVerifier?
    // Identifiers match byte for byte: a bundle id that merely looks the same must fail.
    var productFilter: ExactIdentifier?
    var transactionFilter: ExactIdentifier?
    var activeAt: Date?
    var expectedBundleID: ExactIdentifier?
    var expectedAppVersion: ExactIdentifier?
    var deviceIdentifier: (text: String, bytes: [UInt8])?
    var credited: Set<ExactIdentifier>?
    /// Whether the output shows the receipt's certificates (text and JSON do); a summary line
    /// does not, and a batch should not pay for them.
    var wantsCertificates = true
    var wantsCertificateDetails = false

    /// Whether any filter narrows the in-app purchases shown.
    var narrowsPurchases: Bool { productFilter != nil || transactionFilter != nil || activeAt != nil }
}

/// A requested check and its outcome.
struct CheckResult: Encodable, Sendable {
    let name: String
    let passed: Bool
    let detail: String
}

/// Transactions the receipt and the server's credited list disagree on.
struct Reconciliation: Encodable, Sendable {
    /// In the receipt, not yet credited: the "missed orders".
    let notCredited: [String]
    /// Credited, but not in this receipt.
    let notInReceipt: [String]
}

/// Everything receipt-dump learned about one receipt.
struct DumpResult: Encodable, Sendable {
    let file: String
    /// Why the receipt could not be read or decoded, if it could not.
    var readError: Problem?
    /// The receipt, its in-app purchases narrowed by the filters.
    var receipt: Receipt?
    /// How many in-app purchases the receipt has before filtering.
    var totalInAppPurchases = 0
    /// nil when verification was not asked for.
    var verification: Result<VerificationReport, Problem>?
    var verifiedReceipt: VerifiedReceipt?
    var certificates: [CertificateSummary] = []
    var certificateDetails: [CertificateDetails]?
    var checks: [CheckResult] = []
    var reconciliation: Reconciliation?

    static func make(_ source: ReceiptSource, settings: DumpSettings) -> DumpResult {
        var result = DumpResult(file: source.name)
        let input: [UInt8]
        switch source.load(name: result.file) {
        case .failure(let problem):
            result.readError = problem
            return result
        case .success(let bytes):
            input = bytes
        }
        let container: ReceiptContainer
        do {
            container = try ReceiptContainer.parse(ReceiptInput.receiptBytes(from: input))
        } catch {
            // An envelope refused for trust reasons (more certificates than allowed) is not
            // verified, as receipt-server's 21003 says; anything else is unreadable.
            if settings.verifier != nil, VerifyReceiptResponse.Status(error) == .notAuthenticated {
                result.verification = .failure(Problem(error))
            } else {
                result.readError = Problem(error)
            }
            return result
        }
        if settings.wantsCertificates { result.certificates = container.certificateSummaries() }
        if settings.wantsCertificateDetails { result.certificateDetails = container.certificateDetails() }
        if let verifier = settings.verifier {
            do {
                result.verification = .success(try verifier.verify(container))
            } catch {
                result.verification = .failure(Problem(error))
            }
        }
        let decoded: Receipt
        do {
            decoded = try ReceiptPayloadDecoder.decode(container.payload)
        } catch {
            result.readError = Problem(error)
            return result
        }
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
        result.totalInAppPurchases = decoded.inAppPurchases.count
        if case .success(let report)? = result.verification {
            result.verifiedReceipt = VerifiedReceipt(receipt: shown, verification: report)
        }
        return result
    }

    private static func checks(of receipt: Receipt, _ settings: DumpSettings) -> [CheckResult] {
        var checks: [CheckResult] = []
        if let expected = settings.expectedBundleID {
            checks.append(identifierCheck("bundle-id", expected: expected, found: receipt.bundleID))
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
    /// or a check failed; 2 unreadable.
    var exitStatus: Int32 {
        if readError != nil { return 2 }
        if case .failure = verification { return 1 }
        return checks.allSatisfy(\.passed) ? 0 : 1
    }

    /// The reason to show: the read error, else the verification error.
    var problem: Problem? {
        if let readError { return readError }
        if case .failure(let error) = verification { return error }
        return nil
    }

    var verdict: String {
        if readError != nil { return "unreadable" }
        switch verification {
        case nil: return "not checked"
        case .success: return "verified"
        case .failure: return "not verified"
        }
    }

    enum CodingKeys: String, CodingKey {
        case file, status, verdict, error, verification, certificates, checks, reconciliation, receipt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(exitStatus, forKey: .status)
        try container.encode(verdict, forKey: .verdict)
        try container.encodeIfPresent(problem, forKey: .error)
        if case .success(let report)? = verification {
            try container.encode(report, forKey: .verification)
        }
        if let certificateDetails {
            try container.encode(certificateDetails, forKey: .certificates)
        } else {
            try container.encode(certificates, forKey: .certificates)
        }
        if !checks.isEmpty { try container.encode(checks, forKey: .checks) }
        try container.encodeIfPresent(reconciliation, forKey: .reconciliation)
        try container.encodeIfPresent(receipt, forKey: .receipt)
    }
}

/// A failure as receipt-dump reports it: a stable code and a reason.
struct Problem: Error, Encodable, Sendable {
    let code: String
    let reason: String

    init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    init(_ error: ReceiptError) {
        self.init(code: error.code.name, reason: error.reason)
    }
}
