#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A StoreKit 2 transaction: the payload of `signedTransactionInfo` and of a device's
/// `Transaction.jwsRepresentation` (Apple's JWSTransactionDecodedPayload).
///
/// Every field is optional, as in Apple's own libraries: a payload is never refused for a member it
/// leaves out, only for one of another type. Dates are `Date`s from milliseconds since 1970; money
/// is in milliunits of ``currency``.
public struct SignedTransaction: Sendable, Hashable, Codable, JSONWritable {
    /// The Advanced Commerce API's details of the purchase.
    public var advancedCommerceInfo: AdvancedCommerceTransactionInfo?
    /// The UUID the app associated with the customer's account, as written.
    public var appAccountToken: String?
    /// The identifier of the app download this transaction belongs to.
    public var appTransactionId: String?
    /// How a subscription with a commitment is billed.
    public var billingPlanType: BillingPlanType?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// A subscription commitment's billing period and price.
    public var commitmentInfo: CommitmentInfo?
    /// The ISO 4217 currency code of ``price``.
    public var currency: String?
    /// `Sandbox`, `Production`, `Xcode` or `LocalTesting`.
    public var environment: String?
    /// When the subscription period ends or ended.
    public var expiresDate: Date?
    /// Bought, or shared through Family Sharing.
    public var inAppOwnershipType: InAppOwnershipType?
    /// Whether the customer upgraded to another subscription.
    public var isUpgraded: Bool?
    /// How the offer is paid.
    public var offerDiscountType: OfferDiscountType?
    /// The identifier of the offer redeemed (a promotional offer or offer code id).
    public var offerIdentifier: String?
    /// The offer's duration, ISO 8601 (`P1M`).
    public var offerPeriod: String?
    /// The kind of offer redeemed.
    public var offerType: OfferType?
    /// When the original purchase happened.
    public var originalPurchaseDate: Date?
    /// The transaction identifier of the original purchase.
    public var originalTransactionId: String?
    /// The price in milliunits of ``currency`` (`9990` is 9.99).
    public var price: Int64?
    /// The product identifier.
    public var productId: String?
    /// When the App Store charged the customer (a renewal's own date).
    public var purchaseDate: Date?
    /// How many consumables were bought.
    public var quantity: Int32?
    /// When the App Store refunded or revoked the transaction.
    public var revocationDate: Date?
    /// The share refunded, in milliunits (a prorated refund).
    public var revocationPercentage: Int32?
    /// Why the App Store refunded or revoked the transaction.
    public var revocationReason: RevocationReason?
    /// How the transaction was revoked.
    public var revocationType: RevocationType?
    /// When the App Store signed the data: the instant certificates are judged at.
    public var signedDate: Date?
    /// The App Store storefront's ISO 3166-1 alpha-3 country code.
    public var storefront: String?
    /// Apple's identifier of the storefront.
    public var storefrontId: String?
    /// The subscription group the product belongs to.
    public var subscriptionGroupIdentifier: String?
    /// This transaction's identifier.
    public var transactionId: String?
    /// A purchase or a renewal.
    public var transactionReason: TransactionReason?
    /// The product type.
    public var type: ProductType?
    /// The identifier of a subscription purchase event across devices.
    public var webOrderLineItemId: String?
    /// The members this library does not know, in the order signed; written back after the
    /// known ones, so nothing Apple sends is lost.
    public var unknownFields: [StrictJSON.Member] = []

    /// An empty value, every field absent.
    public init() {}

    /// Reads a transaction payload as Apple signs it (dates in milliseconds since 1970).
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
        json.member("billingPlanType", billingPlanType)
        json.member("bundleId", bundleId)
        json.member("commitmentInfo", commitmentInfo)
        json.member("currency", currency)
        json.member("environment", environment)
        json.member("expiresDate", milliseconds: expiresDate)
        json.member("inAppOwnershipType", inAppOwnershipType)
        json.member("isUpgraded", isUpgraded)
        json.member("offerDiscountType", offerDiscountType)
        json.member("offerIdentifier", offerIdentifier)
        json.member("offerPeriod", offerPeriod)
        json.member("offerType", offerType)
        json.member("originalPurchaseDate", milliseconds: originalPurchaseDate)
        json.member("originalTransactionId", originalTransactionId)
        json.member("price", price)
        json.member("productId", productId)
        json.member("purchaseDate", milliseconds: purchaseDate)
        json.member("quantity", quantity)
        json.member("revocationDate", milliseconds: revocationDate)
        json.member("revocationPercentage", revocationPercentage)
        json.member("revocationReason", revocationReason)
        json.member("revocationType", revocationType)
        json.member("signedDate", milliseconds: signedDate)
        json.member("storefront", storefront)
        json.member("storefrontId", storefrontId)
        json.member("subscriptionGroupIdentifier", subscriptionGroupIdentifier)
        json.member("transactionId", transactionId)
        json.member("transactionReason", transactionReason)
        json.member("type", type)
        json.member("webOrderLineItemId", webOrderLineItemId)
        json.members(unknownFields)
        json.endObject()
    }
}

extension SignedTransaction: SignedPayloadObject {
    init(fields: inout PayloadFields) throws(ReceiptError) {
        transactionId = try fields.string("transactionId")
        originalTransactionId = try fields.string("originalTransactionId")
        webOrderLineItemId = try fields.string("webOrderLineItemId")
        bundleId = try fields.string("bundleId")
        productId = try fields.string("productId")
        subscriptionGroupIdentifier = try fields.string("subscriptionGroupIdentifier")
        purchaseDate = try fields.date("purchaseDate")
        originalPurchaseDate = try fields.date("originalPurchaseDate")
        expiresDate = try fields.date("expiresDate")
        quantity = try fields.int32("quantity")
        type = try fields.value("type")
        appAccountToken = try fields.string("appAccountToken")
        inAppOwnershipType = try fields.value("inAppOwnershipType")
        signedDate = try fields.date("signedDate")
        revocationReason = try fields.value("revocationReason")
        revocationDate = try fields.date("revocationDate")
        revocationType = try fields.value("revocationType")
        revocationPercentage = try fields.int32("revocationPercentage")
        isUpgraded = try fields.bool("isUpgraded")
        environment = try fields.string("environment")
        transactionReason = try fields.value("transactionReason")
        storefront = try fields.string("storefront")
        storefrontId = try fields.string("storefrontId")
        price = try fields.int64("price")
        currency = try fields.string("currency")
        appTransactionId = try fields.string("appTransactionId")
        advancedCommerceInfo = try fields.object("advancedCommerceInfo")
        billingPlanType = try fields.value("billingPlanType")
        commitmentInfo = try fields.object("commitmentInfo")
        offerIdentifier = try fields.string("offerIdentifier")
        offerType = try fields.value("offerType")
        offerDiscountType = try fields.value("offerDiscountType")
        offerPeriod = try fields.string("offerPeriod")
        unknownFields = fields.unknownFields
    }
}

extension SignedTransaction {
    /// A transaction says no App Apple ID; nil always (for code handling every kind alike).
    public var appAppleId: Int64? { nil }
}
