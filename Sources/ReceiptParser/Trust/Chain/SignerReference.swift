/// How signed data names the certificate whose key signed it.
enum SignerReference: Hashable, Sendable {
    /// A CMS SignerInfo's identifier: the issuer and serial number, or the subject key identifier.
    case cms(SignerInfo.Identifier)
    /// The first certificate the data carries, as a JWS header's `x5c` orders its chain.
    case firstCertificate
}
