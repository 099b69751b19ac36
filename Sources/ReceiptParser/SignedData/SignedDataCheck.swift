/// One requirement of ``SignedDataExpectations`` applied to one piece of signed data.
public struct SignedDataCheck: Sendable, Hashable, Codable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        case passed
        case failed
        /// The kind carries nothing to compare (renewal info has no bundle id).
        case notApplicable = "not applicable"
    }

    /// `bundle-id`, `environment` or `app-apple-id`, as receipt-dump's options name them.
    public let name: String
    public let outcome: Outcome
    /// What was expected and what the data says.
    public let detail: String

    /// The failure this check stands for when it failed.
    var error: ReceiptError? {
        guard outcome == .failed else { return nil }
        return ReceiptError(name == "environment" ? .environmentMismatch : .appIdentityMismatch, "\(name): \(detail)")
    }
}
