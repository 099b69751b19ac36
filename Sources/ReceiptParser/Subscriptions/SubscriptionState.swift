#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where one subscription (or non-consumable) stands at an instant: the answer to "is this user
/// entitled to this product now, and why not", computed by ``SubscriptionRules`` from the most
/// recent transaction of one original transaction and its renewal info.
public struct SubscriptionState: Sendable, Hashable {
    /// The status, in the words of Apple's Get All Subscription Statuses.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// Paid up: the instant is before the most recent transaction's `expiresDate` (a
        /// non-consumable is active until revoked).
        case active
        /// Expired, in billing retry, and still inside the grace period Apple grants.
        case gracePeriod
        /// Expired, and Apple is still trying to bill.
        case billingRetry
        /// Expired, and Apple is no longer trying to bill.
        case expired
        /// The most recent transaction was refunded or revoked.
        case revoked

        /// Apple's number for it in a notification's `data.status`.
        public var appleStatus: SubscriptionStatus {
            switch self {
            case .active: .active
            case .gracePeriod: .billingGracePeriod
            case .billingRetry: .billingRetry
            case .expired: .expired
            case .revoked: .revoked
            }
        }
    }

    /// The product of the most recent transaction (after an upgrade, the new one).
    public var productId: String?
    /// Auto-renewable subscription or non-consumable.
    public var type: ProductType?
    /// The original transaction every renewal and upgrade shares: the subscription's identity.
    public var originalTransactionId: String
    /// The most recent transaction's id.
    public var transactionId: String?
    /// The subscription group, nil for a non-consumable.
    public var subscriptionGroupIdentifier: String?
    /// Where it stands at the instant asked.
    public var status: Status
    /// Whether the product's features are due: active or in a grace period.
    public var entitled: Bool { status == .active || status == .gracePeriod }
    /// When the most recent transaction's period ends (nil for a non-consumable).
    public var expiresDate: Date?
    /// When the grace period ends, when the renewal info grants one.
    public var gracePeriodExpiresDate: Date?
    /// When the most recent transaction was refunded or revoked.
    public var revocationDate: Date?
    /// Whether it renews at the period's end, when the renewal info says.
    public var autoRenewStatus: Bool?
    /// The product it renews to (another one after a downgrade), from the renewal info.
    public var autoRenewProductId: String?
    /// Bought, or shared through Family Sharing.
    public var ownershipType: InAppOwnershipType?
    /// `Production` or `Sandbox`, as signed.
    public var environment: String?
}

extension SubscriptionState: JSONWritable {
    /// One entry as receipt-server's entitlement routes answer it and receipt-dump shows it:
    /// every member always there, `null` when unknown; dates RFC 3339 with milliseconds.
    public func write(to json: inout JSONWriter) {
        json.beginObject()
        writeMembers(to: &json)
        json.endObject()
    }

    /// The entry's members without the braces, for an answer that adds its own (receipt-server's
    /// `owner`).
    public func writeMembers(to json: inout JSONWriter) {
        json.nullable("productId", productId) { $0.string($1) }
        json.nullable("type", type) { $0.string($1.rawValue) }
        json.key("originalTransactionId")
        json.string(originalTransactionId)
        json.nullable("transactionId", transactionId) { $0.string($1) }
        json.nullable("subscriptionGroupIdentifier", subscriptionGroupIdentifier) { $0.string($1) }
        json.key("status")
        json.string(status.rawValue)
        json.key("entitled")
        json.bool(entitled)
        for (key, date) in [("expiresDate", expiresDate), ("gracePeriodExpiresDate", gracePeriodExpiresDate),
                            ("revocationDate", revocationDate)] as [(StaticString, Date?)] {
            json.nullable(key, date) { json, date in
                json.asciiString(maximumCount: RFC3339.maximumUTF8Count) { RFC3339.write(date, alwaysMilliseconds: true, into: $0) }
            }
        }
        json.nullable("autoRenewStatus", autoRenewStatus) { $0.bool($1) }
        json.nullable("autoRenewProductId", autoRenewProductId) { $0.string($1) }
        json.nullable("ownershipType", ownershipType) { $0.string($1.rawValue) }
        json.nullable("environment", environment) { $0.string($1) }
    }
}

extension JSONWriter {
    /// Writes `key` and the value, or `null` when there is none.
    mutating func nullable<Value>(_ key: StaticString, _ value: Value?, _ write: (inout JSONWriter, Value) -> Void) {
        self.key(key)
        if let value { write(&self, value) } else { null() }
    }
}
