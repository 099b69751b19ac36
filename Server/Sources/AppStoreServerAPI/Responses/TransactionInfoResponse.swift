import ReceiptParser

/// Get Transaction Info's answer (Apple's TransactionInfoResponse).
public struct TransactionInfoResponse: AppStoreResponse {
    public let answer: AppStoreAnswer
    /// The transaction.
    public let signedTransactionInfo: VerifiedToken<SignedTransaction>
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        signedTransactionInfo = try fields.requiredToken("signedTransactionInfo")
        unknownFields = fields.unknownFields
        self.answer = answer
    }
}
