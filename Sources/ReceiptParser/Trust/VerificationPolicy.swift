#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Choices a server makes beyond the anchor.
public struct VerificationPolicy: Sendable {
    /// When certificates must be valid.
    public enum ValidationTime: Sendable, Hashable {
        /// At the instant the data says it was signed: a receipt's creation date (attribute 12),
        /// a token's `signedDate` (an app transaction's `receiptCreationDate`). Every real Apple
        /// receipt-signing certificate has expired by now, so "now" would reject every old receipt.
        case signedDate
        /// At an instant the caller chooses.
        case instant(Date)
    }

    /// Reject SHA-1 in the receipt signature and in the chain's certificate signatures.
    public var requiresSHA256: Bool
    /// When certificates must be valid.
    public var validationTime: ValidationTime

    /// SHA-1 allowed (2008–2024 Apple chains use it), certificates judged at the signed date.
    public init(requiresSHA256: Bool = false, validationTime: ValidationTime = .signedDate) {
        self.requiresSHA256 = requiresSHA256
        self.validationTime = validationTime
    }
}
