import ReceiptParser

/// Look Up Order ID's answer (Apple's OrderLookupResponse).
public struct OrderLookupResponse: AppStoreResponse {
    public let answer: AppStoreAnswer
    /// Whether the order id is valid.
    public let status: OrderLookupStatus
    /// What the order bought.
    public let signedTransactions: [VerifiedToken<SignedTransaction>]
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        status = try fields.requiredValue("status")
        signedTransactions = try fields.tokens("signedTransactions")
        unknownFields = fields.unknownFields
        self.answer = answer
    }
}

/// Whether Apple knows an order id (`status`). Values Apple does not document are kept.
public struct OrderLookupStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The value as sent.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The order id is valid: ``OrderLookupResponse/signedTransactions`` is what it bought.
    public static let valid = OrderLookupStatus(rawValue: 0)
    /// The order id is not valid.
    public static let invalid = OrderLookupStatus(rawValue: 1)

    public var description: String { String(rawValue) }
}
