/// Where a certificate sits in a chain; rules and reasons name it.
enum ChainRole: String, Sendable, CustomStringConvertible {
    case signer, intermediate, root

    var description: String { rawValue }
}

/// One check of one certificate, by its place in the chain. Rules cost no signature math, so
/// the chain builder applies each as soon as its certificate is known, before spending any
/// signature check on the next link.
protocol CertificateRule: Sendable {
    func check(_ certificate: Certificate, as role: ChainRole) throws(ReceiptError)
}
