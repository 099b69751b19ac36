/// Which ASN.1 encoding rules a reader accepts.
///
/// One reader serves both (as swift-asn1's `DER` and `BER` entry points share one parser): the
/// rules change only what the slow paths accept, never how a DER element is read.
enum EncodingRules: Sendable {
    /// DER: definite lengths only. App Store receipts, their payloads, certificates and signed
    /// attributes are DER.
    case distinguished
    /// BER as receipts use it: DER plus indefinite lengths on constructed elements and
    /// constructed OCTET STRINGs, both of which Xcode's StoreKit Testing receipts use in their
    /// PKCS #7 envelope.
    case basic
}
