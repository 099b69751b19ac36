import ReceiptParser

/// One page of Get Refund History's answer (Apple's RefundHistoryResponse).
public struct RefundHistoryResponse: PagedAppStoreResponse {
    public let answer: AppStoreAnswer
    /// The refunded transactions on this page.
    public let signedTransactions: [VerifiedToken<SignedTransaction>]
    /// Where the next page starts.
    public let revision: String?
    /// Whether Apple has more pages.
    public let hasMore: Bool
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        signedTransactions = try fields.tokens("signedTransactions")
        revision = try fields.string("revision")
        hasMore = try fields.bool("hasMore") ?? false
        unknownFields = fields.unknownFields
        self.answer = answer
    }

    static let positionName = "revision"
    var position: String? { revision }
}
