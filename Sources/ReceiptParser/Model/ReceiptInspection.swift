/// Everything one pass of the pipeline learnt about one input, failures included: what
/// support tools show and what servers decide on.
///
/// Made by ``ReceiptVerifier/inspect(_:options:)`` (or ``ReceiptInspection/inspect(_:verifier:options:)``
/// without verification). ``ReceiptVerifier/verifyAndDecode(_:)`` is the same pass, strict.
public struct ReceiptInspection: Sendable {
    /// The envelope, when it could be read.
    public internal(set) var container: ReceiptContainer?
    /// Why the input, its envelope or its payload could not be read.
    public internal(set) var readError: ReceiptError?
    /// The verification's outcome; nil when no verifier was given or the envelope was unreadable.
    public internal(set) var verification: Result<VerificationReport, ReceiptError>?
    /// The decoded payload, when readable (and, unless the options allow otherwise, verified).
    /// Its in-app purchases are empty when the options do not keep them.
    public internal(set) var receipt: Receipt?
    /// How many in-app purchases the receipt has, whether the options keep them or not.
    public internal(set) var inAppPurchaseCount = 0
    /// Summaries of the envelope's certificates, when the options ask for them.
    public internal(set) var certificates: [CertificateSummary] = []

    /// What became of the input: unreadable, not verified, verified, or not checked.
    public var verdict: Verdict {
        Verdict(readable: readError == nil, verified: verification.map { (try? $0.get()) != nil })
    }

    /// The first failure, in the order of ``verdict``: the verification's, else the read error.
    public var failure: ReceiptError? {
        if case .failure(let error) = verification { return error }
        if let readError { return readError }
        return nil
    }

    /// The verified receipt, or the failure that prevented it: the same as
    /// ``ReceiptVerifier/verifyAndDecode(_:)`` gives, so a failed verification comes first
    /// even when the payload could not be read either.
    public func verified() throws(ReceiptError) -> VerifiedReceipt {
        if case .failure(let error)? = verification { throw error }
        if let readError { throw readError }
        guard case .success(let report)? = verification, let receipt else {
            throw ReceiptError(.signatureInvalid, "the input was not verified")
        }
        return VerifiedReceipt(receipt: receipt, verification: report)
    }
}

/// How much an inspection does beyond verifying and decoding.
public struct InspectionOptions: Sendable, Hashable {
    /// Decode the payload even when verification fails, to show a person what a forged or
    /// broken receipt claims. Off by default: a server must not pay for decoding a forgery,
    /// nor act on what one claims.
    public var decodesUnverified: Bool
    /// Summarize the envelope's certificates (remembered by their bytes, so a batch parses each
    /// certificate once).
    public var summarizesCertificates: Bool
    /// Keep the in-app purchases in the decoded receipt. Off, for a tool that shows only their
    /// number (``ReceiptInspection/inAppPurchaseCount``): every entry is still read and checked
    /// (the same receipts are refused, with the same errors), but none is kept and no text of
    /// theirs is made, which is most of the cost of decoding a receipt with many.
    public var keepsInAppPurchases: Bool

    /// Verified receipts decoded, certificates summarized.
    public init(decodesUnverified: Bool = false, summarizesCertificates: Bool = true, keepsInAppPurchases: Bool = true) {
        self.decodesUnverified = decodesUnverified
        self.summarizesCertificates = summarizesCertificates
        self.keepsInAppPurchases = keepsInAppPurchases
    }

    /// What a server needs: verified receipts decoded, nothing else.
    public static let verifiedOnly = InspectionOptions(decodesUnverified: false, summarizesCertificates: false)
    /// What support tools show: everything, the claims of receipts that fail verification included.
    public static let everything = InspectionOptions(decodesUnverified: true, summarizesCertificates: true)
}
