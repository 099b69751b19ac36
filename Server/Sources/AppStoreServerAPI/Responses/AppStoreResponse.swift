import ReceiptParser

/// One of Apple's response models, read from a verified ``AppStoreAnswer``.
///
/// Members are typed as Apple's models declare them; signed members are ``VerifiedToken``s,
/// which exist only for tokens that verified. A member of another JSON type makes the answer
/// ``AppStoreAPIError/unreadable(host:reason:)``, naming its path; members no model declares are
/// kept in `unknownFields`, and the whole body in ``answer``.
public protocol AppStoreResponse: Sendable {
    /// The answer read: its host, its environment, the body as Apple sent it and every signed
    /// member's inspection.
    var answer: AppStoreAnswer { get }

    /// Reads `answer` as this model.
    init(answer: AppStoreAnswer) throws(AppStoreAPIError)
}

/// A response that comes in pages: the client asks again with ``position`` while ``hasMore``.
protocol PagedAppStoreResponse: AppStoreResponse {
    /// The name of the member and query parameter that carries the position (`revision`).
    static var positionName: String { get }
    /// Whether Apple has more pages.
    var hasMore: Bool { get }
    /// Where the next page starts.
    var position: String? { get }
}
