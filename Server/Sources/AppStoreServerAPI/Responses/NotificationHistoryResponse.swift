import ReceiptParser

/// One page of Get Notification History's answer (Apple's NotificationHistoryResponse).
public struct NotificationHistoryResponse: PagedAppStoreResponse {
    public let answer: AppStoreAnswer
    /// Where the next page starts.
    public let paginationToken: String?
    /// Whether Apple has more pages.
    public let hasMore: Bool
    /// The notifications on this page, in Apple's order.
    public let notificationHistory: [NotificationHistoryResponseItem]
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        paginationToken = try fields.string("paginationToken")
        hasMore = try fields.bool("hasMore") ?? false
        notificationHistory = try fields.objects("notificationHistory", NotificationHistoryResponseItem.init(fields:))
        unknownFields = fields.unknownFields
        self.answer = answer
    }

    static let positionName = "paginationToken"
    var position: String? { paginationToken }
}

/// A notification Apple sent, or tried to, and how each try went (Apple's NotificationHistoryResponseItem).
public struct NotificationHistoryResponseItem: Sendable {
    /// The notification.
    public let signedPayload: VerifiedToken<ServerNotification>?
    /// Each delivery attempt.
    public let sendAttempts: [SendAttemptItem]
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    init(fields: inout AnswerFields) throws(AppStoreAPIError) {
        signedPayload = try fields.token("signedPayload")
        sendAttempts = try fields.objects("sendAttempts", SendAttemptItem.init(fields:))
        unknownFields = fields.unknownFields
    }
}
