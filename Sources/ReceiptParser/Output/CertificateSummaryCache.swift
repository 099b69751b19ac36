/// Certificate summaries for display, remembered process-wide by the certificates' bytes.

extension ReceiptContainer {
    /// Summaries of the certificates the receipt carries, for display. Certificates OpenSSL
    /// cannot parse are left out.
    ///
    /// Summaries are remembered by the certificates' exact bytes (a few hundred, process-wide),
    /// so a batch of receipts from the same signer parses each certificate once.
    public func certificateSummaries() -> [CertificateSummary] {
        CertificateSummary.summaries(of: certificates)
    }
}

extension CertificateSummary {
    /// A summary, or nil for bytes OpenSSL cannot parse as a certificate.
    struct Known: Sendable { let summary: CertificateSummary? }
    /// Summaries by certificate bytes, for ``ReceiptContainer/certificateSummaries()``.
    static let cache = BoundedCache<CertificateBytes, Known>(capacity: 512)

    /// Summaries of signed data's certificates (a receipt's, a token's `x5c`), remembered by
    /// their bytes; certificates OpenSSL cannot parse are left out.
    static func summaries(of certificates: [ByteString]) -> [CertificateSummary] {
        certificates.compactMap { der in
            let key = CertificateBytes(der: der)
            if let known = cache[key] { return known.summary }
            let summary = try? CertificateSummary(Certificate(der: der))
            cache.insert(Known(summary: summary), for: CertificateBytes(der: ByteString(Array(der))))
            return summary
        }
    }
}
