import ReceiptParser

/// Request a Test Notification's answer (Apple's SendTestNotificationResponse).
public struct SendTestNotificationResponse: AppStoreResponse {
    public let answer: AppStoreAnswer
    /// Asks for the test notification's status.
    public let testNotificationToken: String
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        testNotificationToken = try fields.requiredString("testNotificationToken")
        unknownFields = fields.unknownFields
        self.answer = answer
    }
}

/// Get Test Notification Status' answer (Apple's CheckTestNotificationResponse).
public struct CheckTestNotificationResponse: AppStoreResponse {
    public let answer: AppStoreAnswer
    /// The TEST notification.
    public let signedPayload: VerifiedToken<ServerNotification>?
    /// Each delivery attempt.
    public let sendAttempts: [SendAttemptItem]
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        signedPayload = try fields.token("signedPayload")
        sendAttempts = try fields.objects("sendAttempts", SendAttemptItem.init(fields:))
        unknownFields = fields.unknownFields
        self.answer = answer
    }
}
