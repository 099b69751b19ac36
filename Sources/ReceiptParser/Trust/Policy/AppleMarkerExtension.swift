/// Apple's marker extensions: the OIDs that say a certificate was issued for App Store signing.
///
/// Apple's own root also issues certificates for other purposes; only a signer carrying
/// ``receiptSigning`` under an intermediate carrying ``wwdrIntermediate`` signs App Store data.
/// The same pair marks the chains of StoreKit 2's signed transactions.
struct AppleMarkerExtension: CertificateRule {
    /// Apple's receipt-signing leaf certificates carry this extension.
    static let receiptSigning = AppleMarkerExtension(oid: "1.2.840.113635.100.6.11.1", name: "receipt-signing")
    /// Apple's Worldwide Developer Relations intermediates carry this extension.
    static let wwdrIntermediate = AppleMarkerExtension(oid: "1.2.840.113635.100.6.2.1", name: "WWDR")

    /// The extension's dotted OID.
    let oid: String
    /// What Apple calls the certificates that carry it, for reasons.
    let name: String

    func check(_ certificate: Certificate, as role: ChainRole) throws(ReceiptError) {
        guard certificate.hasExtension(oid) else {
            throw ReceiptError(.missingAppleExtension, "the \(role) \(certificate.subjectName) lacks Apple's \(name) extension \(oid)")
        }
    }
}
