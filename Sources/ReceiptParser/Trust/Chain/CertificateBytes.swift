/// A certificate's DER as a dictionary key: hashed by its length and its last 32 bytes (inside
/// its signature, so they differ between any two real certificates; hashing whole certificates
/// would cost more than a lookup saves), compared byte for byte.
struct CertificateBytes: Hashable, Sendable {
    let der: ByteString

    func hash(into hasher: inout Hasher) {
        hasher.combine(der.count)
        der.storage.suffix(32).withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (lhs: CertificateBytes, rhs: CertificateBytes) -> Bool { lhs.der == rhs.der }
}
