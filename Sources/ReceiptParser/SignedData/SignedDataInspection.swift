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
    public internal(set) var checks: [SignedDataCheck] = []
    /// A notification's nested tokens, each inspected by the same rules.
    public internal(set) var nested: [SignedDataInspection] = []
    /// Summaries of the header's `x5c` certificates, when the options ask for them.
    public internal(set) var certificates: [CertificateSummary] = []

    init(member: String?, expectedKind: SignedDataKind?) {
        self.member = member
        self.expectedKind = expectedKind
    }

    /// Unreadable, not verified, verified, or not accepted (genuine, but a check failed).
    public var verdict: Verdict {
        let verdict = Verdict(readable: readError == nil, verified: verification.map { (try? $0.get()) != nil })
        return verdict == .verified && checks.contains { $0.outcome == .failed } ? .notAccepted : verdict
    }

    /// The first failure: reading, then verification, then a failed check.
    public var failure: ReceiptError? {
        if let readError { return readError }
        if case .failure(let error)? = verification { return error }
        return checks.lazy.compactMap(\.error).first
    }
}
