#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// Extend a Subscription Renewal Date's answer (Apple's ExtendRenewalDateResponse).
public struct ExtendRenewalDateResponse: AppStoreResponse {
    public let answer: AppStoreAnswer
    /// The subscription's original transaction id.
    public let originalTransactionId: String?
    /// The subscription period's web order line item id.
    public let webOrderLineItemId: String?
    /// Whether Apple extended it.
    public let success: Bool
    /// The renewal date after the extension.
    public let effectiveDate: Date?
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        originalTransactionId = try fields.string("originalTransactionId")
        webOrderLineItemId = try fields.string("webOrderLineItemId")
        success = try fields.bool("success") ?? false
        effectiveDate = try fields.date("effectiveDate")
        unknownFields = fields.unknownFields
        self.answer = answer
    }
}

/// Extend Subscription Renewal Dates for All Active Subscribers' answer (Apple's MassExtendRenewalDateResponse).
public struct MassExtendRenewalDateResponse: AppStoreResponse {
    public let answer: AppStoreAnswer
    /// Asks for the work's status.
    public let requestIdentifier: String
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        requestIdentifier = try fields.requiredString("requestIdentifier")
        unknownFields = fields.unknownFields
        self.answer = answer
    }
}

/// Get Status of Subscription Renewal Date Extensions' answer (Apple's MassExtendRenewalDateStatusResponse).
public struct MassExtendRenewalDateStatusResponse: AppStoreResponse {
    public let answer: AppStoreAnswer
    /// The work asked about.
    public let requestIdentifier: String?
    /// Whether Apple has finished.
    public let complete: Bool
    /// When it finished.
    public let completeDate: Date?
    /// Subscriptions extended.
    public let succeededCount: Int64?
    /// Subscriptions Apple could not extend.
    public let failedCount: Int64?
    /// Members Apple's model does not document, as sent.
    public let unknownFields: [StrictJSON.Member]

    public init(answer: AppStoreAnswer) throws(AppStoreAPIError) {
        var fields = try AnswerFields(answer)
        requestIdentifier = try fields.string("requestIdentifier")
        complete = try fields.bool("complete") ?? false
        completeDate = try fields.date("completeDate")
        succeededCount = try fields.int64("succeededCount")
        failedCount = try fields.int64("failedCount")
        unknownFields = fields.unknownFields
        self.answer = answer
    }
}
