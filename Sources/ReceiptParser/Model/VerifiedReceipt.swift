/// A receipt that passed verification, decoded.
public struct VerifiedReceipt: Sendable, Hashable, Codable {
    /// The decoded payload.
    public let receipt: Receipt
    /// How it was verified.
    public let verification: VerificationReport

    /// Pairs a receipt with the report of its verification (for example after narrowing its
    /// in-app purchases for display).
    public init(receipt: Receipt, verification: VerificationReport) {
        self.receipt = receipt
        self.verification = verification
    }
}
