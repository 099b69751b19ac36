#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What verification established about a receipt that passed.
public struct VerificationReport: Sendable, Hashable, Codable {
    /// The rules that were applied.
    public let mode: TrustAnchor.Mode
    /// The receipt's digest algorithm (`SHA-1` or `SHA-256`).
    public let digestAlgorithm: String
    /// The instant certificates were judged at.
    public let validationTime: Date
    /// The chain from the signer to the anchor (one certificate in StoreKit Testing mode).
    public let chain: [CertificateSummary]
}
