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
/// let verifier = SignedDataVerifier(expectations: .init(bundleID: "com.example.app", environment: .production))
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
    public let expectations: SignedDataExpectations
    /// Whether a notification's nested tokens are verified too (they are by default; a
    /// notification verifies only when they do and agree with it).
    public let verifiesNestedTokens: Bool

    let chainCache: ChainCache?

    public init(anchor: TrustAnchor = .appleRootCAG3, policy: VerificationPolicy = VerificationPolicy(),
                expectations: SignedDataExpectations = SignedDataExpectations(), verifiesNestedTokens: Bool = true,
                chainCacheCapacity: Int = ReceiptVerifier.defaultChainCacheCapacity) {
        self.anchor = anchor
        self.policy = policy
        self.expectations = expectations
        self.verifiesNestedTokens = verifiesNestedTokens
        chainCache = chainCacheCapacity > 0 ? ChainCache(capacity: chainCacheCapacity) : nil
    }

    /// Inspects one compact JWS: reads it, verifies it, reads its payload and applies the
    /// expectations, keeping every failure.
    ///
    /// - Parameter kind: the kind the token must be; nil accepts any kind its payload says.
    public func inspect(_ token: [UInt8], expecting kind: SignedDataKind? = nil,
                        options: InspectionOptions = .verifiedOnly) -> SignedDataInspection {
        inspect(token, member: nil, expecting: kind, options: options)
    }

    func inspect(_ bytes: [UInt8], member: String?, expecting expectedKind: SignedDataKind?,
                 options: InspectionOptions) -> SignedDataInspection {
        var inspection = SignedDataInspection(member: member, expectedKind: expectedKind)
        let token: CompactJWS
        do {
            token = try CompactJWS(bytes)
        } catch {
            inspection.readError = error
            return inspection
        }
        // A payload too sparse to say its kind (test fixtures) is taken as the kind expected;
        // Apple's payloads always carry their kind's members, so another kind is still refused.
        let kind = SignedDataKind.detect(payload: token.payloadValue) ?? expectedKind
        inspection.kind = kind
        // The payload read as its kind: a documented field of another JSON type makes the data
        // unreadable (exit 2), before any certificate is looked at.
        var decoded: SignedPayload?
        if let kind {
            do {
                decoded = try SignedPayload(kind: kind, payload: token.payloadValue)
            } catch {
                inspection.readError = error
                return inspection
            }
        }
        do {
            let header = try JWSHeader(token.header)
            if options.summarizesCertificates { inspection.certificates = CertificateSummary.summaries(of: header.certificates) }
            inspection.verification = .success(try verify(token, header: header, kind: kind, expecting: expectedKind))
        } catch {
            // A date of another JSON type is a payload that cannot be read as its kind, as a
            // field of another type is when the models decode it: unreadable, not unverified.
            if error.code == .wrongValueType {
                inspection.readError = error
                return inspection
            }
            inspection.verification = .failure(error)
            guard options.decodesUnverified else { return inspection }
        }
        inspection.payload = token.payloadValue
        inspection.decoded = decoded
        guard let kind else { return inspection }
        let identity = SignedDataIdentity(token.payloadValue, kind: kind)
        if case .success? = inspection.verification {
            inspection.checks = identity.checks(against: expectations)
        }
        if kind == .notification, verifiesNestedTokens {
            inspectNested(in: token.payloadValue, identity: identity, options: options, into: &inspection)
        }
        return inspection
    }

    /// The signature, the header's rules, the chain at the data's instant, and the kind.
    private func verify(_ token: CompactJWS, header: JWSHeader, kind: SignedDataKind?,
                        expecting expectedKind: SignedDataKind?) throws(ReceiptError) -> VerificationReport {
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
            signedAt: { () throws(ReceiptError) -> Date in try Self.signedDate(of: token.payloadValue, kind: kind) })
        guard let kind else {
            throw ReceiptError(.wrongKind, "the payload is of no known kind (no transactionId, notificationType, receiptType or renewal member)")
        }
        if let expectedKind, kind != expectedKind {
            throw ReceiptError(.wrongKind, "the token is \(kind.phrase) where \(expectedKind.phrase) is expected")
        }
        return VerificationReport(mode: anchor.mode, digestAlgorithm: Digest.sha256.name, validationTime: outcome.instant,
                                  chain: outcome.entry.summaries)
    }

    /// The instant the data claims: `signedDate`, or an app transaction's `receiptCreationDate`,
    /// in milliseconds since 1970 (a fraction of a millisecond is accepted; Xcode writes one).
    static func signedDate(of payload: StrictJSON.Value, kind: SignedDataKind?) throws(ReceiptError) -> Date {
        let field = kind?.dateField ?? "signedDate"
        switch payload[field] {
        case nil, .null?:
            throw ReceiptError(.missingSignedDate, "the payload has no \(field) and no validation time was given")
        case .number(let text)?:
            guard let date = UnixMilliseconds.date(from: text) else {
                throw ReceiptError(.wrongValueType, "\(field) is not a number of milliseconds in the years 0000 to 9999")
            }
            return date
        case let other?:
            throw ReceiptError(.wrongValueType, "\(field) is \(other.typeName); a number of milliseconds is required")
        }
    }

    /// Verifies a notification's nested tokens with the same rules; each must be of its
    /// member's kind and agree with the notification. One that does not fails the notification.
    private func inspectNested(in payload: StrictJSON.Value, identity: SignedDataIdentity, options: InspectionOptions,
                               into inspection: inout SignedDataInspection) {
        let members: [(container: String, name: String, kind: SignedDataKind)] = [
            ("data", "signedTransactionInfo", .transaction), ("data", "signedRenewalInfo", .renewalInfo),
            ("appData", "signedAppTransactionInfo", .appTransaction),
        ]
        for member in members {
            guard let value = payload[member.container]?[member.name], value != .null else { continue }
            let path = "\(member.container).\(member.name)"
            guard case .string(let text) = value else {
                inspection.nested.append(SignedDataInspection(member: path, expectedKind: member.kind, readError:
                    ReceiptError(.wrongValueType, "\(path) is \(value.typeName), not a token")))
                continue
            }
            var nested = inspect(Array(text.utf8), member: path, expecting: member.kind,
                                 options: InspectionOptions(decodesUnverified: options.decodesUnverified,
                                                            summarizesCertificates: options.summarizesCertificates))
            nested.checks = []  // the notification's expectations are checked once, on the notification
            if case .success? = nested.verification, let payload = nested.payload,
               let disagreement = identity.disagreement(with: SignedDataIdentity(payload, kind: member.kind)) {
                nested.verification = .failure(disagreement)
            }
            inspection.nested.append(nested)
        }
        guard case .success? = inspection.verification,
              let failed = inspection.nested.first(where: { $0.failure != nil }), let error = failed.failure
        else { return }
        // The notification fails as its nested token does: unreadable when that one is.
        let prefixed = ReceiptError(error.code, "\(failed.member ?? "a nested token"): \(error.reason)")
        if failed.readError != nil {
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
    var typeName: String {
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
