/// The one error type of ReceiptParser.
///
/// Match on ``code`` (stable across releases); ``reason`` is for people and may change.
/// Two errors are equal when their codes are equal, so tests can assert the failure class.
public struct ReceiptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable identifier.
    public let code: Code
    /// A sentence for people: what was found and where.
    public let reason: String

    @usableFromInline
    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: ReceiptError, rhs: ReceiptError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `code: reason`, for logs.
    public var description: String { "\(code): \(reason)" }

    /// The failure classes. New codes may be added; existing ones keep their meaning.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The identifier printed by tools and used in JSON, such as `signatureInvalid`.
        public let name: String
        private init(_ name: String) { self.name = name }
        /// The identifier, as ``name``.
        public var description: String { name }

        /// Whether this code refuses trust (the data is *not verified*) rather than reading
        /// (the data is *unreadable*): the signature, the chain, the key and digest policy, the
        /// date certificates are judged at, a token's kind, its nested tokens' agreement and the
        /// expectations. Envelope limits that exist against forgeries count here too, although
        /// they are met while the envelope is read: `tooManyCertificates` and
        /// `certificateTooLarge` (a certificate bomb is a forgery attempt, not damaged data).
        /// The rule these codes serve is in the documentation's "Unreadable or not verified".
        public var isTrustFailure: Bool { Self.trustFailures.contains(self) }

        private static let trustFailures: Set<Code> = [
            .signerCount, .signerNotFound, .invalidCertificate, .digestNotAllowed,
            .unsupportedSignatureAlgorithm, .messageDigestMismatch, .signatureInvalid, .untrustedChain,
            .missingAppleExtension, .certificateNotValidAtTime, .missingCreationDate, .invalidAnchor,
            .tooManyCertificates, .certificateTooLarge, .keyNotAllowed,
            .unsupportedCriticalHeader, .missingSignedDate, .wrongKind, .appIdentityMismatch, .environmentMismatch,
        ]

        // Input layer
        /// The input is text but not valid base64.
        public static let notBase64 = Code("notBase64")
        /// An iOS 6 style transaction receipt (a text dictionary), not an app receipt.
        public static let legacyTransactionReceipt = Code("legacyTransactionReceipt")
        /// The input exceeds ``DecodingLimits/maximumInputSize``, or a payload holds more
        /// attributes or in-app purchases than ``DecodingLimits`` allows.
        public static let tooLarge = Code("tooLarge")
        /// A JSON request body or input file is not well-formed JSON, nests deeper than
        /// ``DecodingLimits/maximumJSONDepth``, or lacks a member it needs.
        public static let invalidJSON = Code("invalidJSON")
        /// A JSON object names the same key twice. Readers disagree on which one wins, so the
        /// input is ambiguous and refused.
        public static let duplicateKey = Code("duplicateKey")

        // Encoding (container and payload)
        /// The bytes end before a declared element does.
        public static let truncated = Code("truncated")
        /// Bytes follow the end of the outermost element.
        public static let trailingBytes = Code("trailingBytes")
        /// A length does not fit in 64 bits or in the address space.
        public static let lengthOverflow = Code("lengthOverflow")
        /// Elements nest deeper than ``DecodingLimits/maximumDepth``.
        public static let nestingTooDeep = Code("nestingTooDeep")
        /// The bytes break ASN.1 encoding rules (bad tag, bad length form, misplaced end marker).
        public static let malformedEncoding = Code("malformedEncoding")

        // Container
        /// The input is not a PKCS #7 ContentInfo.
        public static let notPKCS7 = Code("notPKCS7")
        /// The ContentInfo holds something other than SignedData, or the SignedData is malformed.
        public static let notSignedData = Code("notSignedData")
        /// The signed content type is not `data`.
        public static let unsupportedContentType = Code("unsupportedContentType")
        /// The SignedData carries no content (a detached signature).
        public static let detachedContent = Code("detachedContent")
        /// The SignedData carries more certificates than ``DecodingLimits/maximumCertificates``.
        public static let tooManyCertificates = Code("tooManyCertificates")
        /// A certificate in the SignedData is larger than ``DecodingLimits/maximumCertificateSize``.
        public static let certificateTooLarge = Code("certificateTooLarge")

        // Payload
        /// The signed content is not a SET of receipt attributes.
        public static let notReceiptPayload = Code("notReceiptPayload")
        /// A date attribute is not an RFC 3339 date.
        public static let invalidDate = Code("invalidDate")
        /// An attribute's value has another ASN.1 type than its meaning requires, or invalid text.
        public static let wrongValueType = Code("wrongValueType")
        /// An INTEGER does not fit in 64 bits.
        public static let integerOverflow = Code("integerOverflow")
        /// An attribute with one meaning occurs twice in the same set.
        public static let duplicateAttribute = Code("duplicateAttribute")

        // Verification
        /// The SignedData has no signer, or more than one.
        public static let signerCount = Code("signerCount")
        /// No certificate matches the signer's identifier.
        public static let signerNotFound = Code("signerNotFound")
        /// A certificate cannot be parsed.
        public static let invalidCertificate = Code("invalidCertificate")
        /// The digest algorithm is not allowed by the policy (SHA-1 and SHA-256 by default).
        public static let digestNotAllowed = Code("digestNotAllowed")
        /// The signature algorithm or key type is not supported.
        public static let unsupportedSignatureAlgorithm = Code("unsupportedSignatureAlgorithm")
        /// The signed attributes' message digest does not match the content.
        public static let messageDigestMismatch = Code("messageDigestMismatch")
        /// The signature does not match the content and the signer's key.
        public static let signatureInvalid = Code("signatureInvalid")
        /// The certificates do not chain to the configured anchor.
        public static let untrustedChain = Code("untrustedChain")
        /// A certificate lacks the Apple marker extension its place in the chain requires.
        public static let missingAppleExtension = Code("missingAppleExtension")
        /// A certificate is outside its validity period at the chosen time.
        public static let certificateNotValidAtTime = Code("certificateNotValidAtTime")
        /// No time to judge certificates at: no usable creation date and none given.
        public static let missingCreationDate = Code("missingCreationDate")
        /// A trust anchor given by the caller is not a usable certificate.
        public static let invalidAnchor = Code("invalidAnchor")
        /// A signing key given by the caller is not an EC P-256 private key in PKCS #8 (DER, or
        /// PEM as App Store Connect's `.p8` files are).
        public static let invalidSigningKey = Code("invalidSigningKey")
        /// A certificate's public key is outside what verification accepts (RSA 2048 to 4096
        /// bits with a public exponent of at most 2^32, EC P-256 or P-384); refused before any
        /// signature math with it.
        public static let keyNotAllowed = Code("keyNotAllowed")

        // Signed data (StoreKit 2 JWS)
        /// A compact JWS that is not three strict base64url parts (no padding, no `+` or `/`, no
        /// whitespace inside), or whose header or payload is not a JSON object.
        public static let malformedToken = Code("malformedToken")
        /// The JWS header marks a parameter critical (`crit`) that this verifier does not
        /// understand, so the token's meaning cannot be known.
        public static let unsupportedCriticalHeader = Code("unsupportedCriticalHeader")
        /// The signed data carries no date to judge its certificates at (a transaction's
        /// `signedDate`, an AppTransaction's `receiptCreationDate`) and none was given.
        public static let missingSignedDate = Code("missingSignedDate")
        /// A token of one kind (transaction, renewal info, app transaction, notification) where
        /// another was expected, or a payload of no known kind.
        public static let wrongKind = Code("wrongKind")
        /// Genuine signed data of another app: its bundle id or App Apple ID is not the one
        /// expected, or a nested token's disagrees with its notification's.
        public static let appIdentityMismatch = Code("appIdentityMismatch")
        /// Genuine signed data of another environment than the one expected, or a nested
        /// token's environment disagrees with its notification's.
        public static let environmentMismatch = Code("environmentMismatch")
    }
}
