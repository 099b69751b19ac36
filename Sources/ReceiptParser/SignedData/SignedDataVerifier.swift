#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Verifies StoreKit 2 signed data (JWS transactions, renewal info, app transactions, server
/// notifications and the nested tokens inside them) against a configured anchor, with the same
/// trust step as receipts (``ChainTrust``): Apple's chain shape and marker OIDs, certificates
/// judged at the data's own signed date, a bounded cache of chains that passed.
///
/// Create one and share it: it is immutable and `Sendable`.
///
/// ```swift
/// let verifier = SignedDataVerifier(expectations: .init(bundleIDs: ["com.example.app"], environment: .production))
/// let inspection = verifier.inspect(Array(token.utf8))
/// guard inspection.verdict == .verified else { throw inspection.failure! }
/// ```
///
/// A forgery costs one P-256 signature check to reject, before any certificate is trusted; a
/// token whose exact leaf and intermediate passed before costs that check and JSON parsing only.
public struct SignedDataVerifier: Sendable {
    /// What tokens must chain to: Apple Root CA - G3 by default.
    public let anchor: TrustAnchor
    /// When certificates must be valid: at the data's own date (a transaction's `signedDate`,
    /// an app transaction's `receiptCreationDate`) by default, or at an instant given.
    public let policy: VerificationPolicy
    /// The app and environment the data must be for.
    public let expectations: AcceptanceExpectations
    /// Whether a notification's nested tokens are verified too (they are by default; a
    /// notification verifies only when they do and agree with it).
    public let verifiesNestedTokens: Bool

    let chainCache: ChainCache?
    let headerCache: JWSHeaderCache?

    public init(anchor: TrustAnchor = .appleRootCAG3, policy: VerificationPolicy = VerificationPolicy(),
                expectations: AcceptanceExpectations = AcceptanceExpectations(), verifiesNestedTokens: Bool = true,
                chainCacheCapacity: Int = ReceiptVerifier.defaultChainCacheCapacity) {
        self.anchor = anchor
        self.policy = policy
        self.expectations = expectations
        self.verifiesNestedTokens = verifiesNestedTokens
        chainCache = chainCacheCapacity > 0 ? ChainCache(capacity: chainCacheCapacity) : nil
        headerCache = chainCacheCapacity > 0 ? JWSHeaderCache(capacity: chainCacheCapacity) : nil
    }

    /// Inspects one compact JWS: reads it, verifies it, reads its payload and applies the
    /// expectations, keeping every failure.
    ///
    /// - Parameter kind: the kind the token must be; nil accepts any kind its payload says.
    public func inspect(_ token: [UInt8], expecting kind: SignedDataKind? = nil,
                        options: InspectionOptions = .verifiedOnly) -> SignedDataInspection {
        inspect(token, member: nil, expecting: kind, options: options)
    }

    /// Inspects one token that a JSON body holds at `member` (`data[0].lastTransactions[1].signedRenewalInfo`),
    /// which names it in every failure: for answers of Apple's API, whose tokens sit deeper than
    /// ``inspectAll(_:expecting:options:)`` looks.
    public func inspect(_ bytes: [UInt8], member: String?, expecting expectedKind: SignedDataKind?,
                        options: InspectionOptions = .verifiedOnly) -> SignedDataInspection {
        var inspection = SignedDataInspection(member: member, expectedKind: expectedKind)
        let token: CompactJWS
        do {
            token = try CompactJWS(bytes, knownHeaders: headerCache)
        } catch {
            inspection.readError = error
            return inspection
        }
        // A payload too sparse to say its kind (test fixtures) is taken as the kind expected;
        // Apple's payloads always carry their kind's members, so another kind is still refused.
        let kind = SignedDataKind.detect(payload: token.payloadValue) ?? expectedKind
        inspection.kind = kind
        // The payload is read as its kind once: for its signed date, once the signature holds,
        // and then for everything else (identity, checks, the caller's model). A payload that
        // cannot be read as its kind makes genuine data unreadable; of data that did not verify
        // it is only reported, never the verdict ("Unreadable or not verified" in the docs).
        var reading = PayloadReading(kind: kind, value: token.payloadValue)
        do {
            let header = try token.readHeader()
            if options.summarizesCertificates { inspection.certificates = CertificateSummary.summaries(of: header.certificates) }
            inspection.verification = .success(try verify(token, header: header, kind: kind, expecting: expectedKind, reading: &reading))
            if case .json = token.header { headerCache?.insert(header, for: token.headerSegment) }
        } catch where !error.code.isTrustFailure {
            // Met while verifying, but a reading failure (the payload is not of its kind's
            // types, its date no date): unreadable. The payload is read only once the
            // signature holds, so this is never said of a forgery.
            inspection.readError = error
            return inspection
        } catch {
            inspection.verification = .failure(error)
            guard options.decodesUnverified else { return inspection }
        }
        inspection.payload = token.payloadValue
        guard kind != nil else { return inspection }
        switch reading.read() {
        case .success(let decoded):
            inspection.decoded = decoded
        case .failure(let error):
            inspection.readError = error
            return inspection
        }
        guard let decoded = inspection.decoded else { return inspection }
        if case .success? = inspection.verification {
            inspection.checks = expectations.checks(of: AcceptanceSubject(decoded))
        }
        if case .notification(let notification) = decoded, verifiesNestedTokens {
            inspectNested(in: notification, options: options, into: &inspection)
        }
        return inspection
    }

    /// The signature, the header's rules, the chain at the data's instant, and the kind.
    private func verify(_ token: CompactJWS, header: JWSHeader, kind: SignedDataKind?, expecting expectedKind: SignedDataKind?,
                        reading: inout PayloadReading) throws(ReceiptError) -> VerificationReport {
        let certificates = header.certificates
        let required = anchor.mode == .appStore ? 3 : 1
        guard certificates.count == required else {
            throw ReceiptError(.untrustedChain, "the header's x5c has \(certificates.count) certificates; \(required) \(required == 1 ? "is" : "are") required (\(anchor.mode == .appStore ? "leaf, intermediate, root" : "the StoreKit Testing certificate"))")
        }
        // The root is the configured one, byte for byte, before any certificate is parsed.
        if anchor.mode == .appStore, !anchor.isRoot(certificates[2]) {
            throw ReceiptError(.untrustedChain, "x5c[2] is not the configured root certificate")
        }
        var budget = SignatureBudget()
        let trust = ChainTrust(anchor: anchor, policy: policy, cache: chainCache)
        let outcome = try trust.evaluate(
            certificates: certificates, signer: .firstCertificate, budget: &budget,
            checkSignature: { (signer, budget) throws(ReceiptError) in
                guard signer.publicKey == .ec(.p256) else {
                    throw ReceiptError(.keyNotAllowed, "the signer \(signer.subjectName) has an \(signer.publicKey) key; ES256 needs EC P-256")
                }
                let der = ByteString(try ES256Signature.der(token.signature))
                try SignatureCheck.require(SignatureCheck.run(der, over: ByteString(token.signingInput), scheme: .ecdsa, digest: .sha256,
                                                              by: signer, role: "the token signer", budget: &budget),
                                           "the token's signature")
            },
            signedAt: { () throws(ReceiptError) -> Date in try reading.signedDate() })
        guard let kind else { throw PayloadReading.noKind }
        if let expectedKind, kind != expectedKind {
            throw ReceiptError(.wrongKind, "the token is \(kind.phrase) where \(expectedKind.phrase) is expected")
        }
        return VerificationReport(mode: anchor.mode, digestAlgorithm: Digest.sha256.name, validationTime: outcome.instant,
                                  chain: outcome.entry.summaries)
    }

    /// Verifies a notification's nested tokens with the same rules; each must be of its
    /// member's kind and agree with the notification (``BodyAgreement``). One that does not
    /// fails the notification.
    private func inspectNested(in notification: ServerNotification, options: InspectionOptions,
                               into inspection: inout SignedDataInspection) {
        let members: [(path: String, token: String?, kind: SignedDataKind)] = [
            ("data.signedTransactionInfo", notification.data?.signedTransactionInfo, .transaction),
            ("data.signedRenewalInfo", notification.data?.signedRenewalInfo, .renewalInfo),
            ("appData.signedAppTransactionInfo", notification.appData?.signedAppTransactionInfo, .appTransaction),
        ]
        let nestedOptions = InspectionOptions(decodesUnverified: options.decodesUnverified,
                                              summarizesCertificates: options.summarizesCertificates)
        for member in members {
            guard let text = member.token else { continue }
            var nested = inspect(Array(text.utf8), member: member.path, expecting: member.kind, options: nestedOptions)
            nested.checks = []  // the notification's expectations are checked once, on the notification
            inspection.nested.append(nested)
        }
        BodyAgreement.apply(to: &inspection.nested, reference: ("the notification", .notification(notification)))
        guard case .success? = inspection.verification,
              let failed = inspection.nested.first(where: { $0.failure != nil }), let error = failed.failure
        else { return }
        // The notification fails as its nested token does: unreadable when that one is.
        let prefixed = ReceiptError(error.code, "\(failed.member ?? "a nested token"): \(error.reason)")
        if failed.verdict == .unreadable {
            inspection.readError = prefixed
        } else {
            inspection.verification = .failure(prefixed)
        }
    }
}

extension SignedDataInspection {
    init(member: String?, expectedKind: SignedDataKind?, readError: ReceiptError) {
        self.init(member: member, expectedKind: expectedKind)
        self.readError = readError
    }
}

extension StrictJSON.Value {
    /// For reasons: "a string", "an object".
    public var typeName: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}
