import CReceiptCrypto

/// The one way verification checks a signature: the key must pass ``KeyPolicy/standard``
/// (judged when its certificate was parsed), the scheme the label names must fit the key, and
/// the budget must allow one more check. Only then does the key do any math.
enum SignatureCheck {
    /// What `key` says of `signature` over `data`; `role` names the key in reasons.
    static func run(_ signature: ByteString, over data: ByteString, scheme: SignatureScheme, digest: Digest,
                    by key: Certificate, role: String, budget: inout SignatureBudget) throws(ReceiptError) -> rc_signature_result {
        if let refusal = key.keyRefusal {
            throw ReceiptError(.keyNotAllowed, "\(role) \(key.subjectName) has a key outside the key policy: \(refusal)")
        }
        if let mismatch = scheme.mismatch(with: key.publicKey) {
            throw ReceiptError(.unsupportedSignatureAlgorithm, "\(role) \(key.subjectName): \(mismatch); the algorithm label must name the key's scheme")
        }
        try budget.spend(on: "\(role) \(key.subjectName) could be tried")
        return key.verifies(signature: signature, over: data, scheme: scheme, digest: digest)
    }

    /// Throws unless `result` says the signature of `what` holds.
    static func require(_ result: rc_signature_result, _ what: String) throws(ReceiptError) {
        switch result {
        case RC_SIGNATURE_VALID: return
        case RC_SIGNATURE_UNSUPPORTED_KEY: throw ReceiptError(.unsupportedSignatureAlgorithm, "\(what): unsupported key type")
        case RC_SIGNATURE_UNSUPPORTED_DIGEST: throw ReceiptError(.digestNotAllowed, "\(what): unsupported digest")
        default: throw ReceiptError(.signatureInvalid, "\(what) does not verify")
        }
    }
}
