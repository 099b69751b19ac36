/// Everything one pass over one signed token learnt, failures included: what receipt-dump shows
/// and what servers decide on. Made by ``SignedDataVerifier/inspect(_:expecting:options:)``.
public struct SignedDataInspection: Sendable {
    /// Where the token was found: nil for a bare token, else its member in a JSON body or a
    /// notification (`signedPayload`, `signedTransactions[1]`, `data.signedTransactionInfo`).
    public internal(set) var member: String?
    /// The kind the token had to be, when one was required.
    public internal(set) var expectedKind: SignedDataKind?
    /// The kind its payload says, when readable and recognisable.
    public internal(set) var kind: SignedDataKind?
    /// Why the token or its payload could not be read.
    public internal(set) var readError: ReceiptError?
    /// The trust step's outcome (signature, chain, date, kind, nested tokens); nil when the
    /// token was unreadable.
    public internal(set) var verification: Result<VerificationReport, ReceiptError>?
    /// The payload, as signed (members in order), when readable and verified, or when the
    /// options decode unverified data.
    public internal(set) var payload: StrictJSON.Value?
    /// The payload read as its kind (``SignedTransaction``, ...), whenever ``payload`` is there
    /// and its kind is known.
    public internal(set) var decoded: SignedPayload?
    /// The expectations' checks, when verified.
    public internal(set) var checks: [AcceptanceCheck] = []
    /// A notification's nested tokens, each inspected by the same rules.
    public internal(set) var nested: [SignedDataInspection] = []
    /// Summaries of the header's `x5c` certificates, when the options ask for them.
    public internal(set) var certificates: [CertificateSummary] = []

    init(member: String?, expectedKind: SignedDataKind?) {
        self.member = member
        self.expectedKind = expectedKind
    }

    /// Not verified, unreadable, verified, or not accepted (genuine, but a check failed): the
    /// rule in "Unreadable or not verified". A token whose trust step failed is not verified,
    /// whatever its payload holds; one that verified but cannot be read as its kind is unreadable.
    public var verdict: Verdict {
        if case .failure? = verification { return .notVerified }
        if readError != nil { return .unreadable }
        guard verification != nil else { return .notChecked }
        return checks.contains { $0.outcome == .failed } ? .notAccepted : .verified
    }

    /// The first failure, in the order of ``verdict``: verification, then reading, then a failed check.
    public var failure: ReceiptError? {
        if case .failure(let error)? = verification { return error }
        if let readError { return readError }
        return checks.lazy.compactMap(\.error).first
    }
}
