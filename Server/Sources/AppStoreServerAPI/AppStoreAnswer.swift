import ReceiptParser

/// One answer of Apple's API, read strictly, with every signed member verified.
///
/// ``body`` is the answer as Apple sent it, every member kept (members this client does not know
/// included); ``tokens`` are its signed members, each inspected under the configured trust and
/// the expectations of the environment that answered, named by its path in the body
/// (`data[0].lastTransactions[1].signedRenewalInfo`). A client returns an answer only when
/// every token in it verified and passed the expectations; each call reads it as one of Apple's
/// response models (``AppStoreResponse``).
public struct AppStoreAnswer: Sendable {
    /// The environment whose host answered.
    public let environment: Environment
    /// That host, as configured.
    public let host: String
    /// The JSON body (an empty object when Apple sent none).
    public let body: StrictJSON.Value
    /// The signed members, in the body's order.
    public let tokens: [SignedDataInspection]

    /// The signed members by path, for the response models.
    private let tokensByPath: [String: Int]

    /// The inspection of the token at `member` (`data[0].lastTransactions[1].signedRenewalInfo`).
    public func token(at member: String) -> SignedDataInspection? {
        tokensByPath[member].map { tokens[$0] }
    }
}

extension AppStoreAnswer {
    /// The members that hold tokens, wherever they sit in an answer, and the kind each must be.
    static let tokenMembers: [String: SignedDataKind] = [
        "signedTransactionInfo": .transaction, "signedTransactions": .transaction, "signedRenewalInfo": .renewalInfo,
        "signedAppTransactionInfo": .appTransaction, "signedPayload": .notification,
    ]

    /// Reads `bytes` strictly and verifies every token member in it with `verifier`. Throws
    /// ``AppStoreAPIError/unreadable(host:reason:)`` for a body that is not strict JSON, a token
    /// member that is not a string and a token that cannot be read, and
    /// ``AppStoreAPIError/notVerified(host:member:_:)`` for one that does not verify or is for
    /// another app or environment.
    init(bytes: [UInt8], environment: Environment, host: String, verifier: SignedDataVerifier) throws(AppStoreAPIError) {
        let body: StrictJSON.Value
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            body = .object([])
        } else {
            do throws(ReceiptError) {
                body = try StrictJSON.parse(bytes)
            } catch {
                throw .unreadable(host: host, reason: "not strict JSON: \(error.code.name): \(error.reason)")
            }
            guard case .object = body else { throw .unreadable(host: host, reason: "the answer is \(body.typeName), not an object") }
        }
        var tokens: [SignedDataInspection] = []
        try Self.collect(body, path: "", into: &tokens, host: host, verifier: verifier)
        self.environment = environment
        self.host = host
        self.body = body
        self.tokens = tokens
        tokensByPath = Dictionary(tokens.indices.map { (tokens[$0].member ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    private static func collect(_ value: StrictJSON.Value, path: String, into tokens: inout [SignedDataInspection],
                                host: String, verifier: SignedDataVerifier) throws(AppStoreAPIError) {
        switch value {
        case .object(let members):
            for member in members {
                let memberPath = path.isEmpty ? member.key : path + "." + member.key
                if let kind = tokenMembers[member.key] {
                    try inspect(member.value, path: memberPath, kind: kind, into: &tokens, host: host, verifier: verifier)
                } else {
                    try collect(member.value, path: memberPath, into: &tokens, host: host, verifier: verifier)
                }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                try collect(element, path: "\(path)[\(index)]", into: &tokens, host: host, verifier: verifier)
            }
        default:
            break
        }
    }

    private static func inspect(_ value: StrictJSON.Value, path: String, kind: SignedDataKind, into tokens: inout [SignedDataInspection],
                                host: String, verifier: SignedDataVerifier) throws(AppStoreAPIError) {
        switch value {
        case .null:
            return
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                try inspect(element, path: "\(path)[\(index)]", kind: kind, into: &tokens, host: host, verifier: verifier)
            }
        case .string(let text):
            let inspection = verifier.inspect(Array(text.utf8), member: path, expecting: kind,
                                              options: InspectionOptions(decodesUnverified: false, summarizesCertificates: true))
            if let error = inspection.readError { throw .unreadable(host: host, reason: "\(path): \(error.code.name): \(error.reason)") }
            if let failure = inspection.failure { throw .notVerified(host: host, member: path, failure) }
            tokens.append(inspection)
        default:
            throw .unreadable(host: host, reason: "\(path) is \(value.typeName), not a token")
        }
    }
}
