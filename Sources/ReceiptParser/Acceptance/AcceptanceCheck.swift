/// One requirement of ``AcceptanceExpectations`` applied to one verified receipt or token.
public struct AcceptanceCheck: Sendable, Hashable, Codable {
    /// Whether the data met the requirement.
    public enum Outcome: String, Sendable, Hashable, Codable {
        case passed
        case failed
        /// The data carries nothing to compare (renewal info has no bundle id; sandbox data
        /// need not carry an App Apple ID).
        case notApplicable = "not applicable"
    }

    /// `bundle-id`, `environment` or `app-apple-id`, as both tools' options name them.
    public let name: String
    public let outcome: Outcome
    /// What was expected and what the data says, its strings escaped and bounded.
    public let detail: String

    public init(name: String, outcome: Outcome, detail: String) {
        self.name = name
        self.outcome = outcome
        self.detail = detail
    }

    /// The refusal this check stands for when it failed: ``ReceiptError/Code/environmentMismatch``
    /// for the environment, ``ReceiptError/Code/appIdentityMismatch`` for the others, with the
    /// reason `name: detail`.
    public var error: ReceiptError? {
        guard outcome == .failed else { return nil }
        return ReceiptError(name == "environment" ? .environmentMismatch : .appIdentityMismatch, "\(name): \(detail)")
    }
}
