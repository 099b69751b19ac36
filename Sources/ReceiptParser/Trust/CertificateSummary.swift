#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
