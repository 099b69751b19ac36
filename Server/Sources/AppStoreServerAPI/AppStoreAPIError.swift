import ReceiptParser

/// Why a call to the App Store Server API gave no usable answer, in the four classes
/// receipt-dump's exit statuses name: Apple refused or a signed value did not verify (1), the
/// answer cannot be read (2), no answer came (3). Every text from Apple or the network is
/// escaped for display (``description``).
public enum AppStoreAPIError: Error, Sendable, CustomStringConvertible {
    /// Apple answered with an error: its HTTP status and, when the body says, its `errorCode`
    /// and `errorMessage`.
    case refused(host: String, status: Int, errorCode: Int?, errorMessage: String?)
    /// A signed member of the answer did not verify under the configured trust and expectations.
    case notVerified(host: String, member: String, ReceiptError)
    /// The answer cannot be read: not JSON, over the size cap, a member of the wrong type, a
    /// malformed token, a page token or revision that repeats.
    case unreadable(host: String, reason: String)
    /// No answer: the connection failed, the deadline passed, retries or the wait were used up.
    case noAnswer(host: String, reason: String)

    /// receipt-dump's exit status for the error.
    public var exitStatus: Int32 {
        switch self {
        case .refused, .notVerified: 1
        case .unreadable: 2
        case .noAnswer: 3
        }
    }

    /// Apple's `errorCode`, when it sent one.
    public var errorCode: Int? {
        if case .refused(_, _, let code, _) = self { return code }
        return nil
    }

    public var description: String {
        func safe(_ text: String) -> String { DisplayText.escape(text, limit: DisplayText.reasonLimit) }
        switch self {
        case .refused(let host, let status, let code, let message):
            let detail = [code.map { "errorCode \($0)" }, message.map { "errorMessage \"\(safe($0))\"" }].compactMap { $0 }
            return "\(safe(host)) refused the request: HTTP \(status)" + (detail.isEmpty ? "" : ", " + detail.joined(separator: ", "))
        case .notVerified(let host, let member, let error):
            return "\(safe(host)) answered, but \(safe(member)) is not verified: \(error.code.name): \(safe(error.reason))"
        case .unreadable(let host, let reason):
            return "the answer of \(safe(host)) cannot be read: \(safe(reason))"
        case .noAnswer(let host, let reason):
            return "no answer from \(safe(host)): \(safe(reason))"
        }
    }

    /// Apple's error codes worth asking again for (its documentation marks them retryable).
    static let retryableCodes: Set<Int> = [4040002, 4040004, 4040006, 5000001]
    /// `OriginalTransactionIdNotFoundError` and `TransactionIdNotFoundError`: with the
    /// environment `auto`, asked again of sandbox.
    static let notFoundInProduction: Set<Int> = [4040005, 4040010]
    /// `RateLimitExceededError`.
    static let rateLimitExceeded = 4290000
}
