import ReceiptParser

/// One page of Get Transaction History's answer (Apple's HistoryResponse).
public struct HistoryResponse: PagedAppStoreResponse {
    public let answer: AppStoreAnswer
    /// Where the next page starts.
    public let revision: String?
    /// Whether Apple has more pages.
    public let hasMore: Bool
    /// The app's bundle id.
    public let bundleId: String?
    /// The app's Apple ID (production only).
    public let appAppleId: Int64?
    /// `Sandbox` or `Production`.
    public let environment: String?
    /// The customer's transactions on this page.
    public let signedTransactions: [VerifiedToken<SignedTransaction>]
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        revision = try fields.string("revision")
        hasMore = try fields.bool("hasMore") ?? false
        bundleId = try fields.string("bundleId")
        appAppleId = try fields.int64("appAppleId")
        environment = try fields.string("environment")
        signedTransactions = try fields.tokens("signedTransactions")
        unknownFields = fields.unknownFields
        self.answer = answer
    }

    static let positionName = "revision"
    var position: String? { revision }
}
