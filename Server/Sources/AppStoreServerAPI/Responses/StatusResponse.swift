import ReceiptParser

/// Get All Subscription Statuses' answer (Apple's StatusResponse).
public struct StatusResponse: AppStoreResponse {
    public let answer: AppStoreAnswer
    /// `Sandbox` or `Production`.
    public let environment: String?
    /// The app's bundle id.
    public let bundleId: String?
    /// The app's Apple ID (production only).
    public let appAppleId: Int64?
    /// One item per subscription group.
    public let data: [SubscriptionGroupIdentifierItem]
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        environment = try fields.string("environment")
        bundleId = try fields.string("bundleId")
        appAppleId = try fields.int64("appAppleId")
        data = try fields.objects("data", SubscriptionGroupIdentifierItem.init(fields:))
        unknownFields = fields.unknownFields
        self.answer = answer
    }
}

/// A subscription group's latest transactions (Apple's SubscriptionGroupIdentifierItem).
public struct SubscriptionGroupIdentifierItem: Sendable {
    /// The subscription group.
    public let subscriptionGroupIdentifier: String?
    /// The latest transaction of each subscription in the group.
    public let lastTransactions: [LastTransactionsItem]
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    init(fields: inout AnswerFields) throws(AppStoreAPIError) {
        subscriptionGroupIdentifier = try fields.string("subscriptionGroupIdentifier")
        lastTransactions = try fields.objects("lastTransactions", LastTransactionsItem.init(fields:))
        unknownFields = fields.unknownFields
    }
}

/// A subscription's status, latest transaction and renewal info (Apple's LastTransactionsItem).
public struct LastTransactionsItem: Sendable {
    /// Active, expired, in billing retry, in grace period or revoked.
    public let status: SubscriptionStatus?
    /// The subscription's original transaction id.
    public let originalTransactionId: String?
    /// Its latest transaction.
    public let signedTransactionInfo: VerifiedToken<SignedTransaction>?
    /// Its renewal info.
    public let signedRenewalInfo: VerifiedToken<SignedRenewalInfo>?
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    init(fields: inout AnswerFields) throws(AppStoreAPIError) {
        status = try fields.value("status")
        originalTransactionId = try fields.string("originalTransactionId")
        signedTransactionInfo = try fields.token("signedTransactionInfo")
        signedRenewalInfo = try fields.token("signedRenewalInfo")
        unknownFields = fields.unknownFields
    }
}
