#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The rules that turn a subscription's signed snapshots into its status at an instant, as Apple's
/// Get All Subscription Statuses defines it. Pure functions of their inputs and the instant: no
/// clock, no database, so the server and receipt-dump give the same answer.
public enum SubscriptionRules {
    /// The state at `instant` of the original transaction whose transactions (any order, any
    /// renewals and upgrades) and renewal info are given; nil when none of them is an
    /// auto-renewable subscription or a non-consumable (consumables and non-renewing
    /// subscriptions are credits, not entitlements).
    ///
    /// From the most recent transaction (latest `purchaseDate`): `revoked` if it has a
    /// `revocationDate`; else `active` while `instant < expiresDate` (a non-consumable always);
    /// else `gracePeriod` if the renewal info is in billing retry and `instant <
    /// gracePeriodExpiresDate`; else `billingRetry` if it is in billing retry; else `expired`.
    public static func state(originalTransactionId: String, transactions: [SignedTransaction],
                             renewalInfo: SignedRenewalInfo?, at instant: Date) -> SubscriptionState? {
        let entitling = transactions.filter(entitles)
        guard let latest = entitling.max(by: isOlder) else { return nil }
        let renews = latest.type == .autoRenewableSubscription
        let renewal = renews ? renewalInfo : nil
        let status: SubscriptionState.Status
        if latest.revocationDate != nil {
            status = .revoked
        } else if !renews || latest.expiresDate.map({ instant < $0 }) == true {
            status = .active
        } else if renewal?.isInBillingRetryPeriod == true {
            status = renewal?.gracePeriodExpiresDate.map({ instant < $0 }) == true ? .gracePeriod : .billingRetry
        } else {
            status = .expired
        }
        return SubscriptionState(
            productId: latest.productId, type: latest.type, originalTransactionId: originalTransactionId,
            transactionId: latest.transactionId, subscriptionGroupIdentifier: latest.subscriptionGroupIdentifier,
            status: status, expiresDate: latest.expiresDate, gracePeriodExpiresDate: renewal?.gracePeriodExpiresDate,
            revocationDate: latest.revocationDate,
            autoRenewStatus: renewal?.autoRenewStatus.flatMap { $0 == .on ? true : $0 == .off ? false : nil },
            autoRenewProductId: renewal?.autoRenewProductId, ownershipType: latest.inAppOwnershipType,
            environment: latest.environment)
    }

    /// Whether `transaction` can be a subscription's most recent: an auto-renewable subscription or
    /// a non-consumable; a consumable or non-renewing subscription is a credit, never an entitlement.
    public static func entitles(_ transaction: SignedTransaction) -> Bool {
        transaction.type == .autoRenewableSubscription || transaction.type == .nonConsumable
    }

    /// Whether `a` was bought before `b`; equal dates are ordered by transaction id (as numbers:
    /// shorter first, then by bytes), so the most recent is the same whatever order they came in.
    static func isOlder(_ a: SignedTransaction, _ b: SignedTransaction) -> Bool {
        let (left, right) = (a.purchaseDate ?? .distantPast, b.purchaseDate ?? .distantPast)
        if left != right { return left < right }
        let (x, y) = (Array((a.transactionId ?? "").utf8), Array((b.transactionId ?? "").utf8))
        return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
    }
}
