#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A subscription's renewal info: the payload of `signedRenewalInfo` (Apple's
/// JWSRenewalInfoDecodedPayload).
///
/// It carries no bundle id and no App Apple ID: whose subscription it is shows only through a
/// verified transaction with the same ``originalTransactionId``.
public struct SignedRenewalInfo: Sendable, Hashable, Codable, JSONWritable {
    /// The Advanced Commerce API's details of the renewal.
    public var advancedCommerceInfo: AdvancedCommerceRenewalInfo?
    /// The UUID the app associated with the customer's account, as written.
    public var appAccountToken: String?
    /// The identifier of the app download this subscription belongs to.
    public var appTransactionId: String?
    /// The product the subscription renews to.
    public var autoRenewProductId: String?
    /// Whether the subscription renews automatically.
    public var autoRenewStatus: AutoRenewStatus?
    /// How the subscription commitment renews.
    public var commitmentInfo: RenewalCommitmentInfo?
    /// The ISO 4217 currency code of ``renewalPrice``.
    public var currency: String?
    /// The win-back offers the customer may redeem.
    public var eligibleWinBackOfferIds: [String]?
    /// `Sandbox`, `Production`, `Xcode` or `LocalTesting`.
    public var environment: String?
    /// Why the subscription expired.
    public var expirationIntent: ExpirationIntent?
    /// When the billing grace period ends.
    public var gracePeriodExpiresDate: Date?
    /// Whether the App Store is still trying to renew.
    public var isInBillingRetryPeriod: Bool?
    /// How the offer is paid.
    public var offerDiscountType: OfferDiscountType?
    /// The identifier of the offer redeemed (a promotional offer or offer code id).
    public var offerIdentifier: String?
    /// The offer's duration, ISO 8601 (`P1M`).
    public var offerPeriod: String?
    /// The kind of offer redeemed.
    public var offerType: OfferType?
    /// The original transaction identifier of the subscription.
    public var originalTransactionId: String?
    /// Whether the customer responded to a price increase.
    public var priceIncreaseStatus: PriceIncreaseStatus?
    /// The product identifier.
    public var productId: String?
    /// When the latest run of uninterrupted subscription periods began.
    public var recentSubscriptionStartDate: Date?
    /// How the renewal is billed.
    public var renewalBillingPlanType: BillingPlanType?
    /// When the subscription renews next.
    public var renewalDate: Date?
    /// The renewal price in milliunits of ``currency``.
    public var renewalPrice: Int64?
    /// When the App Store signed the data: the instant certificates are judged at.
    public var signedDate: Date?
    /// The members this library does not know, in the order signed; written back after the
    /// known ones, so nothing Apple sends is lost.
    public var unknownFields: [StrictJSON.Member] = []

    /// An empty value, every field absent.
    public init() {}

    /// Reads renewal info payload as Apple signs it (dates in milliseconds since 1970).
    ///
    /// Throws ``ReceiptError/Code/wrongValueType``, naming the field and the JSON type found, when
    /// a documented field has another type (or an integer field a fraction or more than its bits);
    /// `null` counts as absent; members not documented are kept in ``unknownFields``.
    public init(payload: StrictJSON.Value) throws(ReceiptError) {
        self = try .read(payload)
    }

    /// Reads the JSON ``write(to:)`` writes (dates as RFC 3339 strings).
    public init(from decoder: any Decoder) throws { self = try .decoded(from: decoder) }

    /// Writes the JSON ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws { try encodeWritten(to: encoder) }

    /// The known fields with Apple's names, keys sorted, dates as RFC 3339 with milliseconds,
    /// then ``unknownFields`` as signed.
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        json.member("advancedCommerceInfo", advancedCommerceInfo)
        json.member("appAccountToken", appAccountToken)
        json.member("appTransactionId", appTransactionId)
        json.member("autoRenewProductId", autoRenewProductId)
        json.member("autoRenewStatus", autoRenewStatus)
        json.member("commitmentInfo", commitmentInfo)
        json.member("currency", currency)
        json.member("eligibleWinBackOfferIds", eligibleWinBackOfferIds)
        json.member("environment", environment)
        json.member("expirationIntent", expirationIntent)
        json.member("gracePeriodExpiresDate", milliseconds: gracePeriodExpiresDate)
        json.member("isInBillingRetryPeriod", isInBillingRetryPeriod)
        json.member("offerDiscountType", offerDiscountType)
        json.member("offerIdentifier", offerIdentifier)
        json.member("offerPeriod", offerPeriod)
        json.member("offerType", offerType)
        json.member("originalTransactionId", originalTransactionId)
        json.member("priceIncreaseStatus", priceIncreaseStatus)
        json.member("productId", productId)
        json.member("recentSubscriptionStartDate", milliseconds: recentSubscriptionStartDate)
        json.member("renewalBillingPlanType", renewalBillingPlanType)
        json.member("renewalDate", milliseconds: renewalDate)
        json.member("renewalPrice", renewalPrice)
        json.member("signedDate", milliseconds: signedDate)
        json.members(unknownFields)
        json.endObject()
    }
}

extension SignedRenewalInfo: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        expirationIntent = try fields.value("expirationIntent")
        originalTransactionId = try fields.string("originalTransactionId")
        autoRenewProductId = try fields.string("autoRenewProductId")
        productId = try fields.string("productId")
        autoRenewStatus = try fields.value("autoRenewStatus")
        isInBillingRetryPeriod = try fields.bool("isInBillingRetryPeriod")
        priceIncreaseStatus = try fields.value("priceIncreaseStatus")
        gracePeriodExpiresDate = try fields.date("gracePeriodExpiresDate")
        signedDate = try fields.date("signedDate")
        environment = try fields.string("environment")
        recentSubscriptionStartDate = try fields.date("recentSubscriptionStartDate")
        renewalDate = try fields.date("renewalDate")
        currency = try fields.string("currency")
        renewalPrice = try fields.int64("renewalPrice")
        eligibleWinBackOfferIds = try fields.strings("eligibleWinBackOfferIds")
        appAccountToken = try fields.string("appAccountToken")
        appTransactionId = try fields.string("appTransactionId")
        advancedCommerceInfo = try fields.object("advancedCommerceInfo")
        commitmentInfo = try fields.object("commitmentInfo")
        renewalBillingPlanType = try fields.value("renewalBillingPlanType")
        offerIdentifier = try fields.string("offerIdentifier")
        offerType = try fields.value("offerType")
        offerDiscountType = try fields.value("offerDiscountType")
        offerPeriod = try fields.string("offerPeriod")
        unknownFields = fields.unknownFields
    }
}

extension SignedRenewalInfo {
    /// Renewal info says no bundle id; nil always (for code handling every kind alike).
    public var bundleId: String? { nil }
    /// Renewal info says no App Apple ID; nil always (for code handling every kind alike).
    public var appAppleId: Int64? { nil }
}
