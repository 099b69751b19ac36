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

/// The parts of a certificate people look at.
public struct CertificateSummary: Sendable, Hashable, Codable {
    /// The subject, RFC 2253 style (`CN=...,O=...`).
    public let subject: String
    /// The issuer, RFC 2253 style.
    public let issuer: String
    /// The serial number, in hex.
    public let serialNumber: String
    /// Start of validity.
    public let notBefore: Date
    /// End of validity.
    public let notAfter: Date
    /// SHA-256 of the certificate's DER, in hex.
    public let sha256: String

    init(_ certificate: Certificate) {
        subject = certificate.subjectName
        issuer = certificate.issuerName
        serialNumber = certificate.serialNumber.hex
        notBefore = certificate.notBefore
        notAfter = certificate.notAfter
        sha256 = certificate.sha256Fingerprint.hex
    }
}

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

extension ReceiptContainer {
    /// Summaries of the certificates the receipt carries, for display. Certificates OpenSSL
    /// cannot parse are left out.
    ///
    /// Summaries are remembered by the certificates' exact bytes (a few hundred, process-wide),
    /// so a batch of receipts from the same signer parses each certificate once.
    public func certificateSummaries() -> [CertificateSummary] {
        certificates.compactMap { der in
            let key = CertificateBytes(der: der)
            if let known = CertificateSummary.cache[key] { return known.summary }
            let summary = try? CertificateSummary(Certificate(der: der))
            CertificateSummary.cache.insert(CertificateSummary.Known(summary: summary),
                                            for: CertificateBytes(der: ByteString(Array(der))))
            return summary
        }
    }
}

extension CertificateSummary {
    /// A summary, or nil for bytes OpenSSL cannot parse as a certificate.
    struct Known: Sendable { let summary: CertificateSummary? }
    /// Summaries by certificate bytes, for ``ReceiptContainer/certificateSummaries()``.
    static let cache = BoundedCache<CertificateBytes, Known>(capacity: 512)
}
