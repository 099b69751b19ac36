import Foundation
import ReceiptLedger
import ReceiptParser
import ServerTestSupport
import Testing

/// Every subscription scenario Apple documents for App Store Server Notifications V2, as the signed
/// notifications Apple would send (signed by the JWS test PKI, verified with its root), delivered to
/// the ledger in 1 000 random orders with repeats (Apple retries a delivery until it is answered, and
/// nothing orders two deliveries): on SQLite and on PostgreSQL, each order ends in the same state as
/// the natural one, and that state is the one Apple documents (checked explicitly, also after each
/// step of the natural order), so a wrong rule fails as surely as an order-dependent one.
///
/// The state compared, per order: the subscription at the instants the scenario's expectations
/// name (`SubscriptionState`, every field: status, entitled, latest transaction, product, dates,
/// auto-renewal, ownership type); its owner; each transaction's revocation and where it is listed
/// (credited to whom and on the claw-back list, a missed order, or owned and not credited); and the
/// notification log as `(notificationUUID, deliveries)`, which must count the order's own deliveries
/// (`stale` depends on arrival order by design, so it is left out). Where the scenario has a user,
/// the app credits the purchase before any notification arrives, in every order alike (a refund
/// that arrives before the credit rightly prevents it, so that order is not varied).
///
/// Each scenario is signed once and each token verified once; the orders then replay the verified
/// models, each under ids of its own (its number before every transaction id, original transaction
/// id and notificationUUID), all in one database per scenario and store. The signatures are checked
/// once per distinct token; the orders exercise the ledger, which never sees the tokens.
///
/// A failure names the order and the seed: `APPLE_SCENARIO_SEED=N` replays the same orders.
/// `APPLE_SCENARIO_ORDERS=N` runs another number of random orders (1 000 unless set). The suite
/// makes about 60 000 ledger writes per store; in a debug build PostgreSQL's client costs about
/// 2 ms of CPU per call, so it takes minutes on two cores (see `ScenarioRun.deliver`).
@Suite("Apple's notification scenarios: one final state in every delivery order")
struct AppleScenarioTests {
    @Test(arguments: StoreKind.allCases) func initialBuy(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.initialBuy, on: store)
    }

    @Test(arguments: StoreKind.allCases) func renewal(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.renewal, on: store)
    }

    @Test(arguments: StoreKind.allCases) func billingRecovery(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.billingRecovery, on: store)
    }

    @Test(arguments: StoreKind.allCases) func failureWithGracePeriod(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.failureWithGracePeriod, on: store)
    }

    @Test(arguments: StoreKind.allCases) func failureWithoutGracePeriod(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.failureWithoutGracePeriod, on: store)
    }

    @Test(arguments: StoreKind.allCases) func gracePeriodExpired(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.gracePeriodExpired, on: store)
    }

    @Test(arguments: StoreKind.allCases) func voluntaryExpiry(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.voluntaryExpiry, on: store)
    }

    @Test(arguments: StoreKind.allCases) func autoRenewOffThenOn(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.autoRenewOffThenOn, on: store)
    }

    @Test(arguments: StoreKind.allCases) func upgrade(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.upgrade, on: store)
    }

    @Test(arguments: StoreKind.allCases) func downgrade(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.downgrade, on: store)
    }

    @Test(arguments: StoreKind.allCases) func renewalExtended(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.renewalExtended, on: store)
    }

    @Test(arguments: StoreKind.allCases) func refund(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.refund, on: store)
    }

    @Test(arguments: StoreKind.allCases) func refundReversed(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.refundReversed, on: store)
    }

    @Test(arguments: StoreKind.allCases) func familySharingRevoked(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.familySharingRevoked, on: store)
    }

    @Test(arguments: StoreKind.allCases) func offerRedeemed(_ store: StoreKind) async throws {
        try await ScenarioRun.check(.offerRedeemed, on: store)
    }
}

// MARK: - The scenarios

/// One of Apple's documented sequences of notifications about one subscription, and what Apple
/// documents its state to be.
struct AppleScenario: Sendable {
    var name: String
    /// The notifications, in the order Apple signs them.
    var steps: [Step]
    /// The user the app credits the purchase to (the first notification's transaction, as the app
    /// posts it) before any notification arrives; nil when the app never reports it.
    var creditedTo: String?
    /// The states Apple documents; their instants are the ones every order's state is compared at.
    var expectations: [Expectation]
    /// The transactions revoked at the end, with their revocation day; every other one is not.
    var revoked: [String: Double] = [:]

    /// One notification: its type and subtype, when it was signed, and the transaction and renewal
    /// info it nests (signed at the same instant, as Apple's are).
    struct Step: Sendable {
        var type: String
        var subtype: String?
        /// The day (after `t0`) Apple signed it; the tokens are signed a minute into it.
        var day: Double
        var transaction: Transaction
        var renewal: Renewal
        /// `data.status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        var status: Int64

        var label: String { subtype.map { "\(type)/\($0)" } ?? type }
    }

    /// A JWSTransactionDecodedPayload of the subscription; days are after `t0`.
    struct Transaction: Sendable {
        var id: String
        var product = AppleScenario.monthly
        var bought: Double
        var expires: Double
        var reason = "PURCHASE"
        var ownership = "PURCHASED"
        /// The revocation's day and `revocationReason` (0 other, 1 an issue in the app).
        var revoked: (day: Double, reason: Int64)?
        var offerCode = false

        func payload(signed: Date) -> ScenarioJSON {
            let price: Int64 = offerCode ? 4990 : product == AppleScenario.premium ? 14990 : 9990
            var json = ScenarioJSON.Members()
            json.add("transactionId", .string(id))
            json.add("originalTransactionId", .string(AppleScenario.original))
            json.add("webOrderLineItemId", .string("8" + id))
            json.add("bundleId", .string(AppleScenario.bundleId))
            json.add("productId", .string(product))
            json.add("subscriptionGroupIdentifier", "21000001")
            json.add("purchaseDate", .milliseconds(AppleScenario.day(bought)))
            json.add("originalPurchaseDate", .milliseconds(AppleScenario.day(0)))
            json.add("expiresDate", .milliseconds(AppleScenario.day(expires)))
            json.add("quantity", 1)
            json.add("type", "Auto-Renewable Subscription")
            json.add("inAppOwnershipType", .string(ownership))
            json.add("signedDate", .milliseconds(signed))
            if let revoked {
                json.add("revocationReason", .integer(revoked.reason))
                json.add("revocationDate", .milliseconds(AppleScenario.day(revoked.day)))
            }
            json.add("environment", "Sandbox")
            json.add("transactionReason", .string(reason))
            json.add("storefront", "USA")
            json.add("storefrontId", "143441")
            json.add("price", .integer(price))
            json.add("currency", "USD")
            if offerCode {
                json.add("offerType", 3)
                json.add("offerIdentifier", "com.example.pro.code")
                json.add("offerDiscountType", "PAY_AS_YOU_GO")
                json.add("offerPeriod", "P1M")
            }
            json.add("appTransactionId", "705000000000000001")
            return json.object
        }
    }

    /// A JWSRenewalInfoDecodedPayload of the subscription; days are after `t0`.
    struct Renewal: Sendable {
        var product = AppleScenario.monthly
        /// The product it renews to; `product` unless said.
        var renewsTo: String?
        var autoRenew = true
        var retrying = false
        var grace: Double?
        var expirationIntent: Int64?
        var offerCode = false
        /// `renewalDate`: the end of the current period.
        var renews: Double

        func payload(signed: Date) -> ScenarioJSON {
            var json = ScenarioJSON.Members()
            json.add("originalTransactionId", .string(AppleScenario.original))
            json.add("autoRenewProductId", .string(renewsTo ?? product))
            json.add("productId", .string(product))
            json.add("autoRenewStatus", autoRenew ? 1 : 0)
            json.add("isInBillingRetryPeriod", .bool(retrying))
            if let expirationIntent { json.add("expirationIntent", .integer(expirationIntent)) }
            if let grace { json.add("gracePeriodExpiresDate", .milliseconds(AppleScenario.day(grace))) }
            if offerCode {
                json.add("offerType", 3)
                json.add("offerIdentifier", "com.example.pro.code")
            }
            json.add("signedDate", .milliseconds(signed))
            json.add("environment", "Sandbox")
            json.add("recentSubscriptionStartDate", .milliseconds(AppleScenario.day(0)))
            json.add("renewalDate", .milliseconds(AppleScenario.day(renews)))
            json.add("renewalPrice", (renewsTo ?? product) == AppleScenario.premium ? 14990 : 9990)
            json.add("currency", "USD")
            json.add("appTransactionId", "705000000000000001")
            return json.object
        }
    }

    /// A state Apple documents: the subscription's at `at` (days after `t0`), after the first
    /// `after` notifications in their natural order, or at the end when nil (whatever the order).
    struct Expectation: Sendable {
        var after: Int?
        var at: Double
        var status: SubscriptionState.Status
        var entitled: Bool
        var transactionId: String?
        var productId: String?
        var autoRenewStatus: Bool?
        var autoRenewProductId: String?
        var expiresDay: Double?
        var graceDay: Double?
        var revocationDay: Double?
        var ownershipType: String?

        init(after: Int? = nil, at: Double, _ status: SubscriptionState.Status, entitled: Bool, transactionId: String? = nil,
             productId: String? = nil, autoRenewStatus: Bool? = nil, autoRenewProductId: String? = nil, expiresDay: Double? = nil,
             graceDay: Double? = nil, revocationDay: Double? = nil, ownershipType: String? = nil) {
            self.after = after
            self.at = at
            self.status = status
            self.entitled = entitled
            self.transactionId = transactionId
            self.productId = productId
            self.autoRenewStatus = autoRenewStatus
            self.autoRenewProductId = autoRenewProductId
            self.expiresDay = expiresDay
            self.graceDay = graceDay
            self.revocationDay = revocationDay
            self.ownershipType = ownershipType
        }
    }

    // Mid 2025, inside jws-leaf's validity (2024-01-01 to 2027-01-01).
    static let t0 = Date(timeIntervalSince1970: 1_748_736_000)  // 2025-06-01T00:00:00Z
    static func day(_ days: Double) -> Date { t0 + days * 86_400 }
    static let bundleId = "com.example.receiptparser.sample"
    static let monthly = "com.example.pro.monthly"
    /// Pro's higher level in the same subscription group.
    static let premium = "com.example.pro.premium"
    static let original = "70000001"
    static let purchaseId = original
    static let renewalId = "70000002"

    /// The transactions the scenario's notifications carry, by id.
    var transactionIds: [String] { Array(Set(steps.map(\.transaction.id))).sorted() }
    /// The instants (days after `t0`) every order's state is compared at.
    var instants: [Double] { Array(Set(expectations.map(\.at))).sorted() }

    // The building blocks.
    static let purchase = Transaction(id: purchaseId, bought: 0, expires: 30)
    static func subscribed(_ transaction: Transaction = purchase, _ renewal: Renewal = Renewal(renews: 30)) -> Step {
        Step(type: "SUBSCRIBED", subtype: "INITIAL_BUY", day: 0, transaction: transaction, renewal: renewal, status: 1)
    }
    static func didRenew(day: Double, subtype: String? = nil, product: String = monthly, offerCode: Bool = false) -> Step {
        Step(type: "DID_RENEW", subtype: subtype, day: day,
             transaction: Transaction(id: renewalId, product: product, bought: day, expires: day + 30, reason: "RENEWAL", offerCode: offerCode),
             renewal: Renewal(product: product, renews: day + 30), status: 1)
    }
    static func didFailToRenew(day: Double, grace: Double? = nil) -> Step {
        Step(type: "DID_FAIL_TO_RENEW", subtype: grace == nil ? nil : "GRACE_PERIOD", day: day, transaction: purchase,
             renewal: Renewal(retrying: true, grace: grace, expirationIntent: 2, renews: 30), status: grace == nil ? 3 : 4)
    }
    static func autoRenew(_ enabled: Bool, day: Double) -> Step {
        Step(type: "DID_CHANGE_RENEWAL_STATUS", subtype: enabled ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED", day: day,
             transaction: purchase, renewal: Renewal(autoRenew: enabled, renews: 30), status: 1)
    }
    static func refund(day: Double) -> Step {
        Step(type: "REFUND", subtype: nil, day: day,
             transaction: Transaction(id: purchaseId, bought: 0, expires: 30, revoked: (day, 1)), renewal: Renewal(renews: 30), status: 5)
    }
}

extension AppleScenario {
    /// SUBSCRIBED/INITIAL_BUY: active for the period bought, expired after it.
    static var initialBuy: AppleScenario {
        AppleScenario(name: "initial buy", steps: [subscribed()], creditedTo: "alice", expectations: [
            Expectation(at: 1, .active, entitled: true, transactionId: purchaseId, productId: monthly, autoRenewStatus: true,
                        autoRenewProductId: monthly, expiresDay: 30, ownershipType: "PURCHASED"),
            Expectation(at: 31, .expired, entitled: false, transactionId: purchaseId),
        ])
    }

    /// DID_RENEW: the renewal is the subscription's latest transaction, active for the new period.
    static var renewal: AppleScenario {
        AppleScenario(name: "renewal", steps: [subscribed(), didRenew(day: 30)], creditedTo: "alice", expectations: [
            Expectation(after: 1, at: 1, .active, entitled: true, transactionId: purchaseId),
            Expectation(after: 1, at: 31, .expired, entitled: false, transactionId: purchaseId),
            Expectation(at: 31, .active, entitled: true, transactionId: renewalId, expiresDay: 60),
            Expectation(at: 61, .expired, entitled: false, transactionId: renewalId),
        ])
    }

    /// DID_FAIL_TO_RENEW (no grace period), then DID_RENEW/BILLING_RECOVERY: in billing retry,
    /// not entitled, until the renewal succeeds; active again after.
    static var billingRecovery: AppleScenario {
        AppleScenario(name: "billing recovery", steps: [subscribed(), didFailToRenew(day: 30), didRenew(day: 33, subtype: "BILLING_RECOVERY")],
                      expectations: [
                          Expectation(after: 2, at: 31, .billingRetry, entitled: false, transactionId: purchaseId),
                          Expectation(at: 34, .active, entitled: true, transactionId: renewalId, expiresDay: 63),
                          Expectation(at: 64, .expired, entitled: false, transactionId: renewalId),
                      ])
    }

    /// DID_FAIL_TO_RENEW/GRACE_PERIOD: still entitled until the grace period ends, then in billing retry.
    static var failureWithGracePeriod: AppleScenario {
        AppleScenario(name: "failure with grace period", steps: [subscribed(), didFailToRenew(day: 30, grace: 46)], expectations: [
            Expectation(at: 31, .gracePeriod, entitled: true, transactionId: purchaseId, graceDay: 46),
            Expectation(at: 47, .billingRetry, entitled: false, transactionId: purchaseId),
        ])
    }

    /// DID_FAIL_TO_RENEW without a subtype: no grace period, so billing retry at once, not entitled.
    static var failureWithoutGracePeriod: AppleScenario {
        AppleScenario(name: "failure without grace period", steps: [subscribed(), didFailToRenew(day: 30)], expectations: [
            Expectation(at: 1, .active, entitled: true, transactionId: purchaseId),
            Expectation(at: 31, .billingRetry, entitled: false, transactionId: purchaseId, graceDay: nil),
        ])
    }

    /// DID_FAIL_TO_RENEW/GRACE_PERIOD, then GRACE_PERIOD_EXPIRED: billing retry once the grace period is over.
    static var gracePeriodExpired: AppleScenario {
        let expired = Step(type: "GRACE_PERIOD_EXPIRED", subtype: nil, day: 46, transaction: purchase,
                           renewal: Renewal(retrying: true, grace: 46, expirationIntent: 2, renews: 30), status: 3)
        return AppleScenario(name: "grace period expired", steps: [subscribed(), didFailToRenew(day: 30, grace: 46), expired], expectations: [
            Expectation(after: 2, at: 31, .gracePeriod, entitled: true, graceDay: 46),
            Expectation(at: 31, .gracePeriod, entitled: true, graceDay: 46),
            Expectation(at: 47, .billingRetry, entitled: false, transactionId: purchaseId, graceDay: 46),
        ])
    }

    /// DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED, then EXPIRED/VOLUNTARY: active with auto-renew
    /// off until the period ends, expired after.
    static var voluntaryExpiry: AppleScenario {
        let expired = Step(type: "EXPIRED", subtype: "VOLUNTARY", day: 30, transaction: purchase,
                           renewal: Renewal(autoRenew: false, expirationIntent: 1, renews: 30), status: 2)
        return AppleScenario(name: "voluntary expiry", steps: [subscribed(), autoRenew(false, day: 10), expired], expectations: [
            Expectation(after: 2, at: 11, .active, entitled: true, autoRenewStatus: false),
            Expectation(at: 11, .active, entitled: true, autoRenewStatus: false),
            Expectation(at: 31, .expired, entitled: false, transactionId: purchaseId, autoRenewStatus: false),
        ])
    }

    /// AUTO_RENEW_DISABLED then AUTO_RENEW_ENABLED: auto-renew on again, whichever arrived last.
    static var autoRenewOffThenOn: AppleScenario {
        AppleScenario(name: "auto-renew off and on", steps: [subscribed(), autoRenew(false, day: 10), autoRenew(true, day: 12)], expectations: [
            Expectation(after: 2, at: 13, .active, entitled: true, autoRenewStatus: false),
            Expectation(at: 13, .active, entitled: true, autoRenewStatus: true, autoRenewProductId: monthly),
            Expectation(at: 31, .expired, entitled: false, autoRenewStatus: true),
        ])
    }

    /// DID_CHANGE_RENEWAL_PREF/UPGRADE: a new transaction of the higher product, same original
    /// transaction, effective at once, with a period of its own.
    static var upgrade: AppleScenario {
        let upgraded = Step(type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", day: 10,
                            transaction: Transaction(id: renewalId, product: premium, bought: 10, expires: 40),
                            renewal: Renewal(product: premium, renews: 40), status: 1)
        return AppleScenario(name: "upgrade", steps: [subscribed(), upgraded], creditedTo: "alice", expectations: [
            Expectation(after: 1, at: 35, .expired, entitled: false, transactionId: purchaseId, productId: monthly),
            Expectation(at: 11, .active, entitled: true, transactionId: renewalId, productId: premium, autoRenewProductId: premium),
            Expectation(at: 35, .active, entitled: true, transactionId: renewalId, productId: premium, expiresDay: 40),
            Expectation(at: 41, .expired, entitled: false, transactionId: renewalId, productId: premium),
        ])
    }

    /// DID_CHANGE_RENEWAL_PREF/DOWNGRADE: the renewal info renews to the lower product, the current
    /// one stays until the period ends; the next DID_RENEW is of the lower product.
    static var downgrade: AppleScenario {
        let bought = Transaction(id: purchaseId, product: premium, bought: 0, expires: 30)
        let downgraded = Step(type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE", day: 10, transaction: bought,
                              renewal: Renewal(product: premium, renewsTo: monthly, renews: 30), status: 1)
        return AppleScenario(name: "downgrade", steps: [subscribed(bought, Renewal(product: premium, renews: 30)), downgraded, didRenew(day: 30)],
                             expectations: [
                                 Expectation(after: 1, at: 11, .active, entitled: true, productId: premium, autoRenewProductId: premium),
                                 Expectation(after: 2, at: 11, .active, entitled: true, transactionId: purchaseId, productId: premium,
                                             autoRenewProductId: monthly),
                                 Expectation(at: 31, .active, entitled: true, transactionId: renewalId, productId: monthly,
                                             autoRenewProductId: monthly),
                                 Expectation(at: 61, .expired, entitled: false, transactionId: renewalId, productId: monthly),
                             ])
    }

    /// RENEWAL_EXTENDED: the transaction signed again with a later expiresDate.
    static var renewalExtended: AppleScenario {
        let extended = Step(type: "RENEWAL_EXTENDED", subtype: nil, day: 20,
                            transaction: Transaction(id: purchaseId, bought: 0, expires: 37), renewal: Renewal(renews: 37), status: 1)
        return AppleScenario(name: "renewal extended", steps: [subscribed(), extended], expectations: [
            Expectation(after: 1, at: 31, .expired, entitled: false, expiresDay: 30),
            Expectation(at: 31, .active, entitled: true, transactionId: purchaseId, expiresDay: 37),
            Expectation(at: 38, .expired, entitled: false, expiresDay: 37),
        ])
    }

    /// REFUND: the purchase revoked; a credit of it is on the claw-back list.
    static var refund: AppleScenario {
        AppleScenario(name: "refund", steps: [subscribed(), refund(day: 5)], creditedTo: "alice", expectations: [
            Expectation(after: 1, at: 6, .active, entitled: true),
            Expectation(at: 6, .revoked, entitled: false, transactionId: purchaseId, revocationDay: 5),
            Expectation(at: 31, .revoked, entitled: false, revocationDay: 5),
        ], revoked: [purchaseId: 5])
    }

    /// REFUND, then REFUND_REVERSED signed later: active again, off the claw-back list.
    static var refundReversed: AppleScenario {
        let reversed = Step(type: "REFUND_REVERSED", subtype: nil, day: 8, transaction: purchase, renewal: Renewal(renews: 30), status: 1)
        return AppleScenario(name: "refund reversed", steps: [subscribed(), refund(day: 5), reversed], creditedTo: "alice", expectations: [
            Expectation(after: 2, at: 9, .revoked, entitled: false, revocationDay: 5),
            Expectation(at: 9, .active, entitled: true, transactionId: purchaseId, revocationDay: nil),
            Expectation(at: 31, .expired, entitled: false),
        ])
    }

    /// REVOKE of a transaction shared through Family Sharing: the family member's subscription is revoked.
    static var familySharingRevoked: AppleScenario {
        let shared = Transaction(id: purchaseId, bought: 0, expires: 30, ownership: "FAMILY_SHARED")
        var revokedShare = shared
        revokedShare.revoked = (12, 0)
        let revoke = Step(type: "REVOKE", subtype: nil, day: 12, transaction: revokedShare, renewal: Renewal(renews: 30), status: 5)
        return AppleScenario(name: "family sharing revoked", steps: [subscribed(shared), revoke], creditedTo: "bob", expectations: [
            Expectation(after: 1, at: 13, .active, entitled: true, ownershipType: "FAMILY_SHARED"),
            Expectation(at: 1, .revoked, entitled: false, revocationDay: 12, ownershipType: "FAMILY_SHARED"),
            Expectation(at: 13, .revoked, entitled: false, transactionId: purchaseId, revocationDay: 12, ownershipType: "FAMILY_SHARED"),
        ], revoked: [purchaseId: 12])
    }

    /// OFFER_REDEEMED (no subtype: an offer code for the active subscription, from its next
    /// renewal), then the DID_RENEW at the offer's price.
    static var offerRedeemed: AppleScenario {
        let redeemed = Step(type: "OFFER_REDEEMED", subtype: nil, day: 10, transaction: purchase,
                            renewal: Renewal(offerCode: true, renews: 30), status: 1)
        return AppleScenario(name: "offer redeemed", steps: [subscribed(), redeemed, didRenew(day: 30, offerCode: true)], expectations: [
            Expectation(after: 2, at: 11, .active, entitled: true, transactionId: purchaseId),
            Expectation(at: 11, .active, entitled: true, transactionId: renewalId),
            Expectation(at: 31, .active, entitled: true, transactionId: renewalId, expiresDay: 60),
            Expectation(at: 61, .expired, entitled: false),
        ])
    }
}

// MARK: - Signing once, replaying many times

/// One notification as verified: the models the server hands the ledger.
struct VerifiedDelivery: Sendable {
    var notification: ServerNotification
    var transaction: SignedTransaction
    var renewalInfo: SignedRenewalInfo

    /// The same delivery under an order's own ids: `prefix` before its notificationUUID, transaction
    /// id and original transaction ids (the order's data never meets another order's).
    func renamed(_ prefix: String) -> VerifiedDelivery {
        var copy = self
        copy.notification.notificationUUID = notification.notificationUUID.map { prefix + $0 }
        copy.transaction.transactionId = transaction.transactionId.map { prefix + $0 }
        copy.transaction.originalTransactionId = transaction.originalTransactionId.map { prefix + $0 }
        copy.renewalInfo.originalTransactionId = renewalInfo.originalTransactionId.map { prefix + $0 }
        return copy
    }
}

extension AppleScenario {
    /// The notificationUUID of step `index`.
    func uuid(_ index: Int) -> String {
        let scenario = String(UInt32(truncatingIfNeeded: ScenarioRun.fnv1a(name)), radix: 16)
        return ScenarioRun.padded(scenario, 8) + "-5c0e-4a11-8e5a-" + ScenarioRun.padded(String(index + 1), 12)
    }

    /// Signs every notification (and its nested tokens) with the test PKI, once, and verifies each
    /// once with the test root: every token must verify.
    func signedAndVerified(by signer: ScenarioSigner) throws -> [VerifiedDelivery] {
        try steps.enumerated().map { index, step in
            let signed = Self.day(step.day) + 60
            let transaction = try signer.token(step.transaction.payload(signed: signed))
            let renewal = try signer.token(step.renewal.payload(signed: signed))
            var data = ScenarioJSON.Members()
            data.add("appAppleId", 1234567890)
            data.add("bundleId", .string(Self.bundleId))
            data.add("bundleVersion", "142")
            data.add("environment", "Sandbox")
            data.add("signedTransactionInfo", .string(transaction))
            data.add("signedRenewalInfo", .string(renewal))
            data.add("status", .integer(step.status))
            var members = ScenarioJSON.Members()
            members.add("notificationType", .string(step.type))
            if let subtype = step.subtype { members.add("subtype", .string(subtype)) }
            members.add("notificationUUID", .string(uuid(index)))
            members.add("data", data.object)
            members.add("version", "2.0")
            members.add("signedDate", .milliseconds(signed))
            let token = try signer.token(members.object)

            let inspection = signer.verifier.inspect(Array(token.utf8))
            try #require(inspection.verdict == .verified, "\(name), \(step.label): \(String(describing: inspection.failure))")
            guard case .notification(let notification)? = inspection.decoded else {
                throw ScenarioFailure("\(name), \(step.label): not read as a notification")
            }
            var verifiedTransaction: SignedTransaction?
            var verifiedRenewal: SignedRenewalInfo?
            for nested in inspection.nested {
                try #require(nested.verdict == .verified, "\(name), \(step.label), \(nested.member ?? "?"): \(String(describing: nested.failure))")
                switch nested.decoded {
                case .transaction(let value)?: verifiedTransaction = value
                case .renewalInfo(let value)?: verifiedRenewal = value
                default: break
                }
            }
            return VerifiedDelivery(notification: notification, transaction: try #require(verifiedTransaction),
                                    renewalInfo: try #require(verifiedRenewal))
        }
    }
}

struct ScenarioFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Orders and the state compared

/// One delivery order: the indices of the scenario's notifications, in the order delivered.
struct DeliveryOrder: Sendable {
    var number: Int
    var sequence: [Int]
    /// What goes before every id of this order.
    var prefix: String { ScenarioRun.padded(String(number), ScenarioRun.prefixWidth) }
}

/// Where a transaction stands in the ledger's listings.
struct TransactionRecord: Hashable, CustomStringConvertible {
    /// "credited to USER", "missed order" (in `uncredited`) or "owned, not credited" (a renewal of a
    /// subscription someone owns: listed nowhere).
    var listing: String
    var revokedAt: Date?
    var revocationReason: String?
    /// On `revokedCredits()`: a credit to claw back.
    var toClawBack: Bool

    var description: String {
        "\(listing), revoked \(revokedAt.map { "\($0)" } ?? "no")\(revocationReason.map { " (\($0))" } ?? "")\(toClawBack ? ", to claw back" : "")"
    }
}

/// What one order leaves, its ids stripped of the order's prefix.
struct FinalState: Hashable {
    /// The subscription at each of the scenario's instants.
    var subscription: [SubscriptionState?]
    var owner: String?
    /// By transaction id.
    var transactions: [String: TransactionRecord]
}

enum ScenarioRun {
    /// Random orders per scenario and store, besides the natural one: 1 000, or
    /// `APPLE_SCENARIO_ORDERS` when set (more for a soak, fewer for a quick local loop).
    static let orderCount: Int = {
        let asked = ProcessInfo.processInfo.environment["APPLE_SCENARIO_ORDERS"].flatMap { Int($0) } ?? 1_000
        return min(max(asked, 1), 99_999)
    }()
    /// The width of an order's number, before every id of the order.
    static let prefixWidth = 5
    /// Orders replayed at once (they touch disjoint rows): PostgreSQL runs them side by side,
    /// SQLite serialises the writes.
    static let concurrentOrders = 6
    /// A listing's limit high enough for every row of a scenario's database.
    static let everything = 1_000_000

    /// The seed of every order: `APPLE_SCENARIO_SEED` when set (to replay a failure), else a new one each run.
    static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["APPLE_SCENARIO_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0 ... .max)
    }()

    /// `digits` with zeros before, to `width` characters.
    static func padded(_ digits: String, _ width: Int) -> String { String(repeating: "0", count: max(0, width - digits.count)) + digits }

    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    /// Order `number` (1...) of `scenario`: a random permutation of its notifications with 0 to 3
    /// repeats inserted at random places; the same for the same seed.
    static func order(_ number: Int, of scenario: AppleScenario, seed: UInt64) -> DeliveryOrder {
        var generator = SplitMix64(seed: seed ^ fnv1a(scenario.name) ^ (UInt64(number) &* 0xD1B5_4A32_D192_ED03))
        let count = scenario.steps.count
        var sequence = Array(0..<count).shuffled(using: &generator)
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            sequence.insert(Int.random(in: 0..<count, using: &generator), at: Int.random(in: 0...sequence.count, using: &generator))
        }
        return DeliveryOrder(number: number, sequence: sequence)
    }

    /// A ledger on a new database of `kind`. PostgreSQL's is `withLedger`'s; SQLite's file goes on
    /// /dev/shm when there is one: the store syncs every commit (`synchronous = FULL`), about 9 ms
    /// each on this machine's disk, and a scenario makes thousands of commits. Durability is not under
    /// test here.
    static func withScenarioLedger(_ kind: StoreKind, clock: TestClock, _ body: (Ledger) async throws -> Void) async throws {
        guard kind == .sqlite else {
            return try await withLedger(kind, clock: clock) { ledger, _ in try await body(ledger) }
        }
        let memory = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        var isDirectory: ObjCBool = false
        let onMemory = FileManager.default.fileExists(atPath: memory.path, isDirectory: &isDirectory) && isDirectory.boolValue
            && FileManager.default.isWritableFile(atPath: memory.path)
        let directory = (onMemory ? memory : FileManager.default.temporaryDirectory)
            .appendingPathComponent("apple-scenarios-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = TestDatabase(kind: .sqlite, location: directory.appendingPathComponent("ledger.sqlite").path)
        try await TestDatabase.use(database, clock: clock) { ledger, _ in try await body(ledger) }
    }

    /// Delivers `order` (the app's credit of the purchase first, when the scenario has one), then
    /// reads what is the order's own: the subscription at the scenario's instants, and its owner.
    ///
    /// The subscription's snapshots are read once and the library's rules applied at each instant,
    /// which is all `Ledger.subscription(originalTransactionId:at:)` does: one read instead of one
    /// per instant (in a debug build PostgreSQL's client costs about 2 ms of CPU per call, and the
    /// suite makes tens of thousands). For the natural order (`checkpoints`), `Ledger.subscription`
    /// itself is asked at every instant and must answer the same, and the expectations due after
    /// each step are checked as it arrives.
    static func deliver(_ order: DeliveryOrder, of deliveries: [VerifiedDelivery], _ scenario: AppleScenario, to ledger: Ledger,
                        checkpoints: Bool = false) async throws -> (subscription: [SubscriptionState?], owner: String?) {
        let prefix = order.prefix
        let mine = deliveries.map { $0.renamed(prefix) }
        let original = prefix + AppleScenario.original
        if let user = scenario.creditedTo {
            // The app posts the purchase it just made: credited before Apple's word on it arrives.
            let purchase = try #require(LedgerTransaction(signedTransaction: mine[0].transaction))
            let outcome = try await ledger.credit(user: user, transactions: [purchase])
            #expect(outcome == CreditOutcome(credited: [purchase.transactionId]), "\(scenario.name), order \(order.number)")
        }
        for (position, index) in order.sequence.enumerated() {
            try await ledger.apply(notification: mine[index].notification, transaction: mine[index].transaction,
                                   renewalInfo: mine[index].renewalInfo)
            guard checkpoints else { continue }
            for expectation in scenario.expectations where expectation.after == position + 1 {
                let state = try await ledger.subscription(originalTransactionId: original, at: AppleScenario.day(expectation.at))
                check(state.map { stripped($0, prefix) }, against: expectation,
                      "\(scenario.name), after \(scenario.steps.prefix(position + 1).map(\.label)), at day \(expectation.at)")
            }
        }
        let snapshots = try await ledger.store.snapshots(ofSubscription: original)
        var subscription: [SubscriptionState?] = []
        for instant in scenario.instants {
            let state = snapshots?.subscriptions(at: AppleScenario.day(instant)).first { $0.originalTransactionId == original }
            subscription.append(state.map { stripped($0, prefix) })
            if checkpoints {
                let answered = try await ledger.subscription(originalTransactionId: original, at: AppleScenario.day(instant))
                #expect(answered == state, "\(scenario.name): Ledger.subscription at day \(instant)")
            }
        }
        if checkpoints {
            // The log of this subscription: each notification once, delivered once.
            let logged = try await ledger.notifications(originalTransactionId: original)
            #expect(logged.count == scenario.steps.count && logged.allSatisfy { $0.deliveries == 1 }, "\(scenario.name): \(logged)")
        }
        let owner = try await ledger.owner(ofSubscription: original)
        return (subscription, owner)
    }

    static func stripped(_ state: SubscriptionState, _ prefix: String) -> SubscriptionState {
        var state = state
        state.originalTransactionId = String(state.originalTransactionId.dropFirst(prefix.count))
        state.transactionId = state.transactionId.map { String($0.dropFirst(prefix.count)) }
        return state
    }

    static func check(_ state: SubscriptionState?, against expected: AppleScenario.Expectation, _ context: String) {
        guard let state else {
            Issue.record("\(context): the ledger has no state for the subscription")
            return
        }
        #expect(state.status == expected.status, "\(context)")
        #expect(state.entitled == expected.entitled, "\(context)")
        if let id = expected.transactionId { #expect(state.transactionId == id, "\(context)") }
        if let product = expected.productId { #expect(state.productId == product, "\(context)") }
        if let autoRenew = expected.autoRenewStatus { #expect(state.autoRenewStatus == autoRenew, "\(context)") }
        if let product = expected.autoRenewProductId { #expect(state.autoRenewProductId == product, "\(context)") }
        if let day = expected.expiresDay { #expect(state.expiresDate == AppleScenario.day(day), "\(context)") }
        if let day = expected.graceDay { #expect(state.gracePeriodExpiresDate == AppleScenario.day(day), "\(context)") }
        #expect(state.revocationDate == expected.revocationDay.map(AppleScenario.day), "\(context)")
        if let ownership = expected.ownershipType { #expect(state.ownershipType?.rawValue == ownership, "\(context)") }
    }

    /// The whole check of `scenario` on `kind`: sign and verify once; deliver the natural order
    /// (checked step by step against Apple's documented states), then `orderCount` random orders;
    /// compare every order's final state with the natural one's, which must be Apple's.
    static func check(_ scenario: AppleScenario, on kind: StoreKind) async throws {
        await ScenarioSlots.shared.acquire()
        do {
            try await checkInSlot(scenario, on: kind)
        } catch {
            await ScenarioSlots.shared.release()
            throw error
        }
        await ScenarioSlots.shared.release()
    }

    private static func checkInSlot(_ scenario: AppleScenario, on kind: StoreKind) async throws {
        let deliveries = try scenario.signedAndVerified(by: ScenarioSigner())
        let seed = Self.seed
        let replay = "APPLE_SCENARIO_SEED=\(seed) replays it"
        let started = ContinuousClock.now
        // The ledger's clock stands still: first sightings, credits and receipts are all "now", so
        // nothing compared depends on when an order ran.
        try await withScenarioLedger(kind, clock: TestClock(AppleScenario.day(100))) { ledger in
            let natural = DeliveryOrder(number: 0, sequence: Array(scenario.steps.indices))
            var orders = [natural]
            orders += (1...orderCount).map { order($0, of: scenario, seed: seed) }

            var delivered: [Int: (subscription: [SubscriptionState?], owner: String?)] = [:]
            delivered[0] = try await deliver(natural, of: deliveries, scenario, to: ledger, checkpoints: true)
            try await withThrowingTaskGroup(of: (Int, [SubscriptionState?], String?).self) { group in
                var next = 1
                func start(_ order: DeliveryOrder) {
                    group.addTask {
                        let result = try await deliver(order, of: deliveries, scenario, to: ledger)
                        return (order.number, result.subscription, result.owner)
                    }
                }
                while next < orders.count, next <= concurrentOrders {
                    start(orders[next])
                    next += 1
                }
                while let (number, subscription, owner) = try await group.next() {
                    delivered[number] = (subscription, owner)
                    if next < orders.count {
                        start(orders[next])
                        next += 1
                    }
                }
            }

            // The listings, read once for every order, by the order's prefix.
            func byOrder<Row>(_ rows: [Row], _ id: (Row) -> String) -> [String: [String: Row]] {
                var grouped: [String: [String: Row]] = [:]
                for row in rows {
                    let id = id(row)
                    grouped[String(id.prefix(prefixWidth)), default: [:]][String(id.dropFirst(prefixWidth))] = row
                }
                return grouped
            }
            let missed = byOrder(try await ledger.uncredited(olderThan: -1, limit: everything), \.transaction.transactionId)
            var credits: [String: [String: Credit]] = [:]
            if let user = scenario.creditedTo {
                credits = byOrder(try await ledger.credits(of: user, limit: everything), \.transactionId)
            }
            let toClawBack = byOrder(try await ledger.revokedCredits(limit: everything), \.transactionId)
            let logged = byOrder(try await ledger.notifications(limit: everything), \.notification.notificationUUID)

            var states: [Int: FinalState] = [:]
            for order in orders {
                let result = try #require(delivered[order.number])
                var transactions: [String: TransactionRecord] = [:]
                for id in scenario.transactionIds {
                    let clawBack = toClawBack[order.prefix]?[id] != nil
                    if let credit = credits[order.prefix]?[id] {
                        transactions[id] = TransactionRecord(listing: "credited to \(credit.user)", revokedAt: credit.revokedAt,
                                                             revocationReason: credit.revocationReason, toClawBack: clawBack)
                    } else if let row = missed[order.prefix]?[id] {
                        transactions[id] = TransactionRecord(listing: "missed order", revokedAt: row.revokedAt,
                                                             revocationReason: row.revocationReason, toClawBack: clawBack)
                    } else {
                        transactions[id] = TransactionRecord(listing: "owned, not credited", toClawBack: clawBack)
                    }
                }
                states[order.number] = FinalState(subscription: result.subscription, owner: result.owner, transactions: transactions)
                // The log counts this order's deliveries of each notification, whatever their order.
                let expectedLog = Dictionary(order.sequence.map { (scenario.uuid($0), 1) }, uniquingKeysWith: +)
                #expect(logged[order.prefix]?.mapValues(\.deliveries) == expectedLog,
                        "\(scenario.name) on \(kind), order \(order.number) \(order.sequence); \(replay)")
            }

            // The natural order's final state is Apple's.
            let reference = try #require(states[0])
            for expectation in scenario.expectations where expectation.after == nil {
                let index = try #require(scenario.instants.firstIndex(of: expectation.at))
                check(reference.subscription[index], against: expectation, "\(scenario.name) on \(kind), at day \(expectation.at)")
            }
            #expect(reference.owner == scenario.creditedTo, "\(scenario.name) on \(kind)")
            for id in scenario.transactionIds {
                let record = try #require(reference.transactions[id])
                let revoked = scenario.revoked[id].map(AppleScenario.day)
                #expect(record.revokedAt == revoked, "\(scenario.name) on \(kind): transaction \(id) is \(record)")
                let credited = scenario.creditedTo != nil && id == AppleScenario.purchaseId
                let listing = credited ? "credited to \(scenario.creditedTo!)" : scenario.creditedTo == nil ? "missed order" : "owned, not credited"
                #expect(record.listing == listing,
                        "\(scenario.name) on \(kind): transaction \(id) is \(record)")
                #expect(record.toClawBack == (credited && revoked != nil), "\(scenario.name) on \(kind): transaction \(id) is \(record)")
            }

            // Every order ends where the natural one did.
            var differing: [Int] = []
            for order in orders.dropFirst() where states[order.number] != reference {
                differing.append(order.number)
                guard differing.count <= 3, let state = states[order.number] else { continue }
                Issue.record("""
                    \(scenario.name) on \(kind): order \(order.number) delivered \(order.sequence.map { scenario.steps[$0].label }) \
                    and ended in another state than the natural order (\(replay)):
                    \(describe(state, scenario))
                    natural order:
                    \(describe(reference, scenario))
                    """)
            }
            #expect(differing.isEmpty,
                    "\(scenario.name) on \(kind): \(differing.count) of \(orderCount) orders differ: \(differing.prefix(20)); \(replay)")
        }
        let deliveredCount = (1...orderCount).reduce(scenario.steps.count) { $0 + order($1, of: scenario, seed: seed).sequence.count }
        print("\(scenario.name) on \(kind): \(orderCount + 1) orders, \(deliveredCount) deliveries in \(ContinuousClock.now - started), "
              + "seed \(seed)")
    }

    static func describe(_ state: FinalState, _ scenario: AppleScenario) -> String {
        var lines: [String] = []
        for (instant, subscription) in zip(scenario.instants, state.subscription) {
            lines.append("  day \(instant): " + (subscription.map {
                "\($0.status) \($0.transactionId ?? "-") \($0.productId ?? "-") expires \($0.expiresDate.map { "\($0)" } ?? "-") "
                    + "grace \($0.gracePeriodExpiresDate.map { "\($0)" } ?? "-") revoked \($0.revocationDate.map { "\($0)" } ?? "-") "
                    + "autoRenew \($0.autoRenewStatus.map { "\($0)" } ?? "-") to \($0.autoRenewProductId ?? "-")"
            } ?? "none"))
        }
        lines.append("  owner \(state.owner ?? "nobody")")
        for id in state.transactions.keys.sorted() { lines.append("  \(id): \(state.transactions[id]!)") }
        return lines.joined(separator: "\n")
    }
}

/// At most `width` scenario checks at once, whatever Swift Testing runs in parallel: two keep both
/// cores busy (an SQLite check writes on one thread), more only crowd the other tests' databases
/// and deadlines.
actor ScenarioSlots {
    static let shared = ScenarioSlots(width: 2)
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { free = width }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
