/// What signed data (a receipt or a token) must chain to. Trust comes only from here, never from
/// the data.
public struct TrustAnchor: Sendable {
    /// The kinds of trust a verifier can be configured with.
    public enum Mode: String, Sendable, Codable {
        /// Apple's receipt rules: signer (with OID 1.2.840.113635.100.6.11.1) ← WWDR
        /// intermediate (with 1.2.840.113635.100.6.2.1) ← root.
        case appStore
        /// Xcode's StoreKit Testing: signed directly by one self-signed certificate.
        case storeKitTesting
    }

    enum Root: Sendable {
        /// A root found among the receipt's own certificates, accepted only if its DER hashes
        /// to this SHA-256 value.
        case pinned(sha256: [UInt8])
        /// A certificate the caller gave.
        case certificate(Certificate)
    }

    /// Which rules apply.
    public let mode: Mode
    let root: Root

    /// SHA-256 of Apple Inc. Root (`CN=Apple Root CA`, 2006–2035), which anchors every App
    /// Store receipt. Every Apple-signed receipt carries this certificate, so pinning its hash
    /// lets verification work without shipping the certificate.
    public static let appleIncRootSHA256 =
        "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024"

    /// App Store receipts, anchored at Apple Inc. Root. The default.
    public static let appleIncRoot = TrustAnchor(mode: .appStore, root: .pinned(sha256: Array(ByteString(hex: appleIncRootSHA256)!)))

    /// SHA-256 of Apple Root CA - G3 (P-384, 2014–2039), which anchors StoreKit 2 signed data:
    /// every token's `x5c` ends with it.
    public static let appleRootCAG3SHA256 =
        "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// StoreKit 2 signed data (JWS), anchored at Apple Root CA - G3. The default of
    /// ``SignedDataVerifier``.
    public static let appleRootCAG3 = TrustAnchor(mode: .appStore, root: .pinned(sha256: Array(ByteString(hex: appleRootCAG3SHA256)!)))

    /// Whether `der` is the root itself, byte for byte (by its pinned hash, or the configured
    /// certificate's bytes).
    func isRoot(_ der: ByteString) -> Bool {
        switch root {
        case .pinned(let sha256): return Digest.sha256.hash(Array(der)) == sha256
        case .certificate(let certificate): return certificate.der == der
        }
    }

    /// App Store rules with another root (DER or PEM), for example a test PKI shaped like Apple's.
    /// Throws `invalidAnchor` for bytes that are no certificate, `keyNotAllowed` for a key
    /// outside the key policy.
    public static func appStore(rootCertificate: [UInt8]) throws(ReceiptError) -> TrustAnchor {
        TrustAnchor(mode: .appStore, root: .certificate(try anchorCertificate(rootCertificate)))
    }

    /// Xcode StoreKit Testing receipts, signed by the certificate exported from Xcode (DER or PEM).
    /// Never chosen automatically: such receipts are made on developers' machines. Throws as
    /// ``appStore(rootCertificate:)`` does.
    public static func storeKitTesting(certificate: [UInt8]) throws(ReceiptError) -> TrustAnchor {
        TrustAnchor(mode: .storeKitTesting, root: .certificate(try anchorCertificate(certificate)))
    }

    /// The caller's certificate, refused at configuration time when its key is outside
    /// ``KeyPolicy/standard`` (verification would refuse every receipt with `keyNotAllowed`).
    private static func anchorCertificate(_ bytes: [UInt8]) throws(ReceiptError) -> Certificate {
        let certificate: Certificate
        do throws(ReceiptError) {
            certificate = try Certificate(derOrPEM: bytes)
        } catch {
            throw ReceiptError(.invalidAnchor, "the trust anchor is not a certificate: \(error.reason)")
        }
        if let refusal = certificate.keyRefusal {
            throw ReceiptError(.keyNotAllowed, "the trust anchor \(certificate.subjectName) has a key outside the key policy: \(refusal)")
        }
        return certificate
    }
}
