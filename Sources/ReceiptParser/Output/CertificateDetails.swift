import CReceiptCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything support staff look at in a certificate (`receipt-dump --certs`).
public struct CertificateDetails: Sendable, Hashable, Codable {
    /// Subject, issuer, serial, validity and fingerprint.
    public let summary: CertificateSummary
    /// The signature algorithm, as dotted OID text (`1.2.840.113549.1.1.11` is sha256WithRSA).
    public let signatureAlgorithm: String
    /// Whether basicConstraints marks a certificate authority.
    public let isCertificateAuthority: Bool
    /// Every extension: dotted OID and criticality, in certificate order.
    public let extensions: [Extension]
    /// Apple's role markers found: `receiptSigning` (1.2.840.113635.100.6.11.1),
    /// `wwdrIntermediate` (1.2.840.113635.100.6.2.1).
    public let appleMarkers: [String]

    /// One X.509 extension.
    public struct Extension: Sendable, Hashable, Codable {
        /// Dotted OID.
        public let oid: String
        /// Whether it is marked critical.
        public let critical: Bool
    }

    init(_ certificate: Certificate) {
        summary = CertificateSummary(certificate)
        signatureAlgorithm = OID.dotted(certificate.signatureAlgorithmOID) ?? "invalid"
        isCertificateAuthority = certificate.isCertificateAuthority
        extensions = certificate.extensionList
        var markers: [String] = []
        if certificate.hasExtension(AppleMarkerExtension.receiptSigning.oid) { markers.append("receiptSigning") }
        if certificate.hasExtension(AppleMarkerExtension.wwdrIntermediate.oid) { markers.append("wwdrIntermediate") }
        appleMarkers = markers
    }
}

extension Certificate {
    var extensionList: [CertificateDetails.Extension] {
        (0..<rc_certificate_extension_count(handle)).compactMap { index in
            var buffer = [CChar](repeating: 0, count: 128)
            var critical: Int32 = 0
            guard rc_certificate_extension_at(handle, index, &buffer, buffer.count, &critical) == 1 else { return nil }
            let oid = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return CertificateDetails.Extension(oid: oid, critical: critical == 1)
        }
    }
}

extension ReceiptContainer {
    /// Details of every certificate the receipt carries, in order; unparseable ones are left out.
    public func certificateDetails() -> [CertificateDetails] {
        certificates.compactMap { try? CertificateDetails(Certificate(der: $0)) }
    }
}
