import CReceiptCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An X.509 certificate: OpenSSL's parse of it, plus the raw fields the chain checks compare.
///
/// OpenSSL decides whether the bytes are a certificate and reads its extensions; the fields
/// compared byte for byte (names, serial, the signed TBS part) are sliced from the DER here.
final class Certificate: @unchecked Sendable {
    // @unchecked: `handle` and `verifier` are never mutated after init; OpenSSL objects are safe
    // to read from many threads once their extension cache is filled, which rc_certificate_parse
    // does, and a verifier is only ever copied (EVP_PKEY_CTX_dup reads its source).
    let handle: OpaquePointer
    let der: ByteString
    let tbsCertificate: ByteString
    let serialNumber: ByteString
    let issuer: ByteString
    let subject: ByteString
    let signatureAlgorithmOID: ByteString
    let signature: ByteString
    let notBefore: Date
    let notAfter: Date
    /// What the public key is.
    let publicKey: PublicKeyFacts
    /// Why ``KeyPolicy/standard`` refuses the key, or nil: judged once here, so verifications
    /// (and the chain cache's hits) only read it.
    let keyRefusal: String?
    /// The key set up once for ``verifies(signature:over:scheme:digest:)`` (nil for a key the
    /// policy refuses, which never checks anything): a warm verification then skips OpenSSL's
    /// per-context set-up.
    private let verifier: OpaquePointer?
    /// Whether the key was set up once (for the tests: without it, checks still give the same
    /// verdicts, set up per check).
    var hasPreparedVerifier: Bool { verifier != nil }

    init(der bytes: ByteString) throws(ReceiptError) {
        let array = Array(bytes)
        guard let handle = array.withUnsafeBufferPointer({ rc_certificate_parse($0.baseAddress!, $0.count) }) else {
            throw ReceiptError(.invalidCertificate, "OpenSSL cannot parse a certificate of \(array.count) bytes")
        }
        self.handle = handle
        der = bytes
        do throws(ReceiptError) {
            let (tbs, serial, innerAlgorithm, outerAlgorithm, issuerName, subjectName, signatureBits, algorithmOID) =
                try ASN1Reader.read(array, rules: .distinguished) { (reader) throws(ReceiptError) in
                    let certificate = try reader.onlyElement(in: 0..<array.count)
                    var parts = reader.children(of: certificate)
                    let tbs = try parts.next(ASN1Tag.sequence, "TBSCertificate", else: .invalidCertificate)
                    let outerAlgorithm = try parts.next(ASN1Tag.sequence, "signatureAlgorithm", else: .invalidCertificate)
                    let signatureBits = try parts.next(ASN1Tag.bitString, "signatureValue", else: .invalidCertificate)

                    var fields = reader.children(of: tbs)
                    _ = try fields.optional(ASN1Tag.contextSpecific(0, constructed: true))
                    let serial = try fields.next(ASN1Tag.integer, "serialNumber", else: .invalidCertificate)
                    let innerAlgorithm = try fields.next(ASN1Tag.sequence, "signature", else: .invalidCertificate)
                    let issuerName = try fields.next(ASN1Tag.sequence, "issuer", else: .invalidCertificate)
                    _ = try fields.next(ASN1Tag.sequence, "validity", else: .invalidCertificate)
                    let subjectName = try fields.next(ASN1Tag.sequence, "subject", else: .invalidCertificate)
                    return (tbs, serial, innerAlgorithm, outerAlgorithm, issuerName, subjectName, signatureBits,
                            try AlgorithmIdentifier.oid(reader, outerAlgorithm, in: array))
                }

            // RFC 5280 §4.1.1.2: the signed and the unsigned algorithm must be the same, or an
            // attacker could steer which algorithm checks the signature.
            guard array[innerAlgorithm.range].elementsEqual(array[outerAlgorithm.range]) else {
                throw ReceiptError(.invalidCertificate, "signature algorithm differs inside and outside the signed part")
            }
            guard !signatureBits.contentRange.isEmpty, array[signatureBits.contentStart] == 0 else {
                throw ReceiptError(.invalidCertificate, "signature BIT STRING has unused bits")
            }
            tbsCertificate = ByteString(bytes.storage[(bytes.storage.startIndex + tbs.start)..<(bytes.storage.startIndex + tbs.end)])
            serialNumber = ByteString(array[serial.contentRange])
            issuer = ByteString(array[issuerName.range])
            subject = ByteString(array[subjectName.range])
            signatureAlgorithmOID = algorithmOID
            signature = ByteString(array[(signatureBits.contentStart + 1)..<signatureBits.contentEnd])
        } catch {
            rc_certificate_free(handle)
            throw ReceiptError(.invalidCertificate, "certificate fields: \(error.reason)")
        }
        var start = rc_time()
        var end = rc_time()
        guard rc_certificate_validity(handle, &start, &end) == 1 else {
            rc_certificate_free(handle)
            throw ReceiptError(.invalidCertificate, "unreadable validity dates")
        }
        notBefore = Self.instant(start)
        notAfter = Self.instant(end)
        publicKey = PublicKeyFacts(handle)
        keyRefusal = KeyPolicy.standard.refusal(of: publicKey)
        verifier = keyRefusal == nil ? rc_verifier_new(handle) : nil
    }

    /// The instant of a certificate time, which OpenSSL gives in UTC.
    private static func instant(_ time: rc_time) -> Date {
        let civil = CivilTime(year: Int(time.year), month: Int(time.month), day: Int(time.day),
                              hour: Int(time.hour), minute: Int(time.minute), second: Int(time.second))
        return Date(timeIntervalSince1970: Double(civil.secondsSince1970))
    }

    /// Parses a certificate given as DER or as PEM text (the first CERTIFICATE block).
    convenience init(derOrPEM bytes: [UInt8]) throws(ReceiptError) {
        if bytes.first == ASN1Tag.sequence {
            try self.init(der: ByteString(bytes))
            return
        }
        let begin = Array("-----BEGIN CERTIFICATE-----".utf8)
        let end = Array("-----END CERTIFICATE-----".utf8)
        guard let start = bytes.firstRange(of: begin),
              let stop = bytes[start.upperBound...].firstRange(of: end),
              let der = Base64.decode(bytes[start.upperBound..<stop.lowerBound])
        else {
            throw ReceiptError(.invalidCertificate, "neither DER nor a PEM CERTIFICATE block")
        }
        try self.init(der: ByteString(der))
    }

    deinit {
        rc_verifier_free(verifier)
        rc_certificate_free(handle)
    }

    /// Whether the certificate carries the extension with this dotted OID.
    func hasExtension(_ oid: String) -> Bool { rc_certificate_extension(handle, oid) >= 0 }

    var isCertificateAuthority: Bool { rc_certificate_is_ca(handle) == 1 }
    var hasUnhandledCriticalExtension: Bool { rc_certificate_has_unhandled_critical_extension(handle) == 1 }

    /// Whether keyUsage, when present, allows `bit` (OpenSSL's KU_* values).
    func keyUsageAllows(_ bit: UInt32) -> Bool {
        let usage = rc_certificate_key_usage(handle)
        return usage == UInt32.max || usage & bit != 0
    }

    var subjectKeyIdentifier: ByteString? {
        var pointer: UnsafePointer<UInt8>?
        let count = rc_certificate_subject_key_id(handle, &pointer)
        guard count > 0, let pointer else { return nil }
        return ByteString(Array(UnsafeBufferPointer(start: pointer, count: count)))
    }

    /// The authorityKeyIdentifier's keyIdentifier: the issuer's subjectKeyIdentifier, when given.
    var authorityKeyIdentifier: ByteString? {
        var pointer: UnsafePointer<UInt8>?
        let count = rc_certificate_authority_key_id(handle, &pointer)
        guard count > 0, let pointer else { return nil }
        return ByteString(Array(UnsafeBufferPointer(start: pointer, count: count)))
    }

    var subjectName: String { name(0) }
    var issuerName: String { name(1) }

    /// The whole name, however long (certificates are at most 16 KiB): cutting it here would
    /// hide its tail without a mark; DisplayText shortens it, visibly, where it is shown.
    private func name(_ which: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let length = Int(rc_certificate_name(handle, which, &buffer, buffer.count))
        guard length >= 0 else { return "?" }
        if length >= buffer.count {
            buffer = [CChar](repeating: 0, count: length + 1)
            guard rc_certificate_name(handle, which, &buffer, buffer.count) == length else { return "?" }
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `date` lies within notBefore...notAfter.
    func isValid(at date: Date) -> Bool { notBefore <= date && date <= notAfter }

    var sha256Fingerprint: ByteString { ByteString(Digest.sha256.hash(Array(der))) }

    /// Checks a signature made with this certificate's key under `scheme`. Policy (the key
    /// policy, the scheme fitting the key, the budget) is the caller's: see
    /// ``SignatureCheck``.
    func verifies(signature: ByteString, over data: ByteString, scheme: SignatureScheme, digest: Digest) -> rc_signature_result {
        data.storage.withUnsafeBufferPointer { message in
            signature.storage.withUnsafeBufferPointer { signatureBytes in
                rc_verify_signature(handle, verifier, scheme.cValue, digest.algorithm,
                                    message.baseAddress ?? UnsafePointer(bitPattern: 1)!, message.count,
                                    signatureBytes.baseAddress ?? UnsafePointer(bitPattern: 1)!, signatureBytes.count)
            }
        }
    }
}
