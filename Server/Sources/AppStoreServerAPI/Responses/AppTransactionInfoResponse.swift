import ReceiptParser

/// Get App Transaction Info's answer (Apple's AppTransactionInfoResponse).
public struct AppTransactionInfoResponse: AppStoreResponse {
    public let answer: AppStoreAnswer
    /// The customer's purchase of the app.
    public let signedAppTransactionInfo: VerifiedToken<SignedAppTransaction>
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        signedAppTransactionInfo = try fields.requiredToken("signedAppTransactionInfo")
        unknownFields = fields.unknownFields
        self.answer = answer
    }
}
