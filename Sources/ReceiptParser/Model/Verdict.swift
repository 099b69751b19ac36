/// What became of a piece of signed data, in the words every output uses: receipt-dump's
/// lines and JSON, receipt-server's answers and page.
public enum Verdict: String, Sendable, Hashable, Codable, CaseIterable {
    /// Genuine: the signature and the chain passed.
    case verified = "verified"
    /// Readable, but the signature or the chain failed.
    case notVerified = "not verified"
    /// Not signed data at all, or data whose structure cannot be read.
    case unreadable = "unreadable"
    /// Read without verification (receipt-dump's `--no-verify`).
    case notChecked = "not checked"
    /// Genuine, but refused by a server's rules (another app, another environment).
    case notAccepted = "not accepted"
    /// Not looked at: the server had no capacity in time.
    case unavailable = "unavailable"

    /// The verdict of a pass over some input, by the rule in "Unreadable or not verified":
    /// `notVerified` when a verification was made and failed, whatever the payload holds (nothing
    /// in data that did not verify is believed, its defects included); else `unreadable` when
    /// the input (or a genuine payload) could not be read; else by the verification's outcome
    /// (`nil` when none was asked for).
    public init(readable: Bool, verified: Bool?) {
        switch (readable, verified) {
        case (_, false?): self = .notVerified
        case (false, _): self = .unreadable
        case (true, nil): self = .notChecked
        case (true, true?): self = .verified
        }
    }

    /// The verdict of a failure, by its code: trust failures
    /// (``ReceiptError/Code/isTrustFailure``) are `notVerified`, the rest `unreadable`.
    public init(failure error: ReceiptError) {
        self = error.code.isTrustFailure ? .notVerified : .unreadable
    }
}
