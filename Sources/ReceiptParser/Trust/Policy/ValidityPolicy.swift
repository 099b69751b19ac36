#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every certificate of a chain must be valid at one instant: the time the signed data claims
/// (a receipt's creation date, a transaction's signed date) or one the caller gives. Never
/// "now": Apple's signing certificates expire every few years, and old data stays genuine.
///
/// Applied to every verification, including chains the ``ChainCache`` remembers, since each
/// piece of data brings its own instant.
struct ValidityPolicy: Sendable {
    /// The instant certificates are judged at.
    let instant: Date

    func check(_ chain: [Certificate]) throws(ReceiptError) {
        for certificate in chain where !certificate.isValid(at: instant) {
            throw ReceiptError(.certificateNotValidAtTime,
                               "\(certificate.subjectName) is valid \(RFC3339.string(from: certificate.notBefore)) to \(RFC3339.string(from: certificate.notAfter)), not at \(RFC3339.string(from: instant))")
        }
    }
}
