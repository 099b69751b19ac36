#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// Get Notification History's body: a window of at most 180 days, optionally narrowed.
public struct NotificationHistoryRequest: Sendable, Hashable {
    public var startDate: Date
    public var endDate: Date
    public var notificationType: String?
    public var notificationSubtype: String?
    public var transactionId: String?
    public var onlyFailures: Bool

    public init(startDate: Date, endDate: Date, notificationType: String? = nil, notificationSubtype: String? = nil,
                transactionId: String? = nil, onlyFailures: Bool = false) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }

    var json: [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key("endDate"); json.number(milliseconds(endDate))
        if let notificationSubtype { json.key("notificationSubtype"); json.string(notificationSubtype) }
        if let notificationType { json.key("notificationType"); json.string(notificationType) }
        if onlyFailures { json.key("onlyFailures"); json.bool(true) }
        json.key("startDate"); json.number(milliseconds(startDate))
        if let transactionId { json.key("transactionId"); json.string(transactionId) }
        json.endObject()
        return json.finish()
    }
}

/// Get Transaction History's filters (each optional; Apple's names).
public struct TransactionHistoryQuery: Sendable, Hashable {
    public var productIds: [String] = []
    public var productTypes: [String] = []
    /// `ASCENDING` or `DESCENDING`.
    public var sort: String?
    public var subscriptionGroupIdentifiers: [String] = []
    public var inAppOwnershipType: String?
    public var revoked: Bool?
    public var startDate: Date?
    public var endDate: Date?

    public init() {}

    var parameters: [(String, String)] {
        var query: [(String, String)] = []
        if let startDate { query.append(("startDate", String(milliseconds(startDate)))) }
        if let endDate { query.append(("endDate", String(milliseconds(endDate)))) }
        query += productIds.map { ("productId", $0) }
        query += productTypes.map { ("productType", $0) }
        if let sort { query.append(("sort", sort)) }
        query += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { query.append(("inAppOwnershipType", inAppOwnershipType)) }
        if let revoked { query.append(("revoked", revoked ? "true" : "false")) }
        return query
    }
}

/// Extend a Subscription Renewal Date's body.
public struct ExtendRenewalDateRequest: Sendable, Hashable {
    /// 1 to 90 days.
    public var extendByDays: Int
    /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
    public var extendReasonCode: Int
    /// A UUID that makes the request idempotent: retrying it extends once.
    public var requestIdentifier: String

    public init(extendByDays: Int, extendReasonCode: Int, requestIdentifier: String = UUID().uuidString.lowercased()) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }

    var json: [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key("extendByDays"); json.number(extendByDays)
        json.key("extendReasonCode"); json.number(extendReasonCode)
        json.key("requestIdentifier"); json.string(requestIdentifier)
        json.endObject()
        return json.finish()
    }
}

/// Extend Subscription Renewal Dates for All Active Subscribers' body.
public struct MassExtendRenewalDateRequest: Sendable, Hashable {
    public var extendByDays: Int
    public var extendReasonCode: Int
    public var requestIdentifier: String
    public var productId: String
    /// Empty: every storefront.
    public var storefrontCountryCodes: [String]

    public init(productId: String, extendByDays: Int, extendReasonCode: Int,
                requestIdentifier: String = UUID().uuidString.lowercased(), storefrontCountryCodes: [String] = []) {
        self.productId = productId
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
    }

    var json: [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key("extendByDays"); json.number(extendByDays)
        json.key("extendReasonCode"); json.number(extendReasonCode)
        json.key("productId"); json.string(productId)
        json.key("requestIdentifier"); json.string(requestIdentifier)
        if !storefrontCountryCodes.isEmpty {
            json.key("storefrontCountryCodes"); json.beginArray()
            for code in storefrontCountryCodes { json.string(code) }
            json.endArray()
        }
        json.endObject()
        return json.finish()
    }
}

/// Send Consumption Information's body (version 2, since 2025-12).
public struct ConsumptionRequest: Sendable, Hashable {
    /// Apple refuses the body unless the customer consented.
    public var customerConsented: Bool
    /// `DELIVERED`, `UNDELIVERED_QUALITY_ISSUE`, ...
    public var deliveryStatus: String
    /// 0 to 100000 (thousandths of a percent), when known.
    public var consumptionPercentage: Int?
    /// `DECLINE`, `GRANT_FULL`, `GRANT_PRORATED`, when the app has one.
    public var refundPreference: String?
    public var sampleContentProvided: Bool

    public init(customerConsented: Bool, deliveryStatus: String, consumptionPercentage: Int? = nil,
                refundPreference: String? = nil, sampleContentProvided: Bool) {
        self.customerConsented = customerConsented
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
        self.sampleContentProvided = sampleContentProvided
    }

    var json: [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        if let consumptionPercentage { json.key("consumptionPercentage"); json.number(consumptionPercentage) }
        json.key("customerConsented"); json.bool(customerConsented)
        json.key("deliveryStatus"); json.string(deliveryStatus)
        if let refundPreference { json.key("refundPreference"); json.string(refundPreference) }
        json.key("sampleContentProvided"); json.bool(sampleContentProvided)
        json.endObject()
        return json.finish()
    }
}

/// An instant as Apple's API writes it: UNIX milliseconds.
func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
