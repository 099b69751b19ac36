/// Typed entry points: one call per kind that verifies a token, applies the expectations and
/// returns its payload as a model, or throws why not.
///
/// ```swift
/// let verifier = SignedDataVerifier(expectations: .init(bundleIDs: ["com.example.app"], environment: .production))
/// let transaction = try verifier.verifyTransaction(Array(signedTransactionInfo.utf8))
/// grant(transaction.productId, until: transaction.expiresDate)
/// ```
///
/// Each throws the inspection's ``SignedDataInspection/failure``: unreadable data
/// (``ReceiptError/Code/malformedToken``, ``ReceiptError/Code/duplicateKey``,
/// ``ReceiptError/Code/wrongValueType``, ...), data that did not verify (signature, chain, date,
/// ``ReceiptError/Code/wrongKind`` for a token of another kind, a notification's nested token),
/// or a failed expectation (``ReceiptError/Code/appIdentityMismatch``,
/// ``ReceiptError/Code/environmentMismatch``). Use ``SignedDataVerifier/inspect(_:expecting:options:)``
/// to see every step instead.
extension SignedDataVerifier {
    /// Verifies a transaction (`signedTransactionInfo`, `Transaction.jwsRepresentation`).
    public func verifyTransaction(_ token: [UInt8]) throws(ReceiptError) -> SignedTransaction {
        let payload = try verifiedPayload(token, kind: .transaction)
        guard case .transaction(let transaction) = payload else { throw Self.notOfKind(.transaction) }
        return transaction
    }

    /// Verifies a subscription's renewal info (`signedRenewalInfo`). It names no app: check its
    /// `originalTransactionId` against a verified transaction.
    public func verifyRenewalInfo(_ token: [UInt8]) throws(ReceiptError) -> SignedRenewalInfo {
        let payload = try verifiedPayload(token, kind: .renewalInfo)
        guard case .renewalInfo(let renewalInfo) = payload else { throw Self.notOfKind(.renewalInfo) }
        return renewalInfo
    }

    /// Verifies an app transaction (`AppTransaction`, `signedAppTransactionInfo`), judged at its
    /// `receiptCreationDate`.
    public func verifyAppTransaction(_ token: [UInt8]) throws(ReceiptError) -> SignedAppTransaction {
        let payload = try verifiedPayload(token, kind: .appTransaction)
        guard case .appTransaction(let appTransaction) = payload else { throw Self.notOfKind(.appTransaction) }
        return appTransaction
    }

    /// Verifies an App Store Server Notification V2 (the body's `signedPayload`) and, unless
    /// ``verifiesNestedTokens`` is off, its nested tokens, which must agree with it. The nested
    /// tokens stay tokens in the model: read them with ``verifyTransaction(_:)`` and the others.
    public func verifyNotification(_ token: [UInt8]) throws(ReceiptError) -> ServerNotification {
        let payload = try verifiedPayload(token, kind: .notification)
        guard case .notification(let notification) = payload else { throw Self.notOfKind(.notification) }
        return notification
    }

    /// The typed payload of a token of `kind` that verified and passed every check.
    private func verifiedPayload(_ token: [UInt8], kind: SignedDataKind) throws(ReceiptError) -> SignedPayload {
        let inspection = inspect(token, expecting: kind)
        if let failure = inspection.failure { throw failure }
        guard let decoded = inspection.decoded else { throw Self.notOfKind(kind) }
        return decoded
    }

    private static func notOfKind(_ kind: SignedDataKind) -> ReceiptError {
        ReceiptError(.wrongKind, "the token is not \(kind.phrase)")
    }
}
