import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// Subscription status as Apple's Get All Subscription Statuses defines it, from snapshots that
/// arrive in any order: the rules on every branch, the same answer in every order, and Apple's
/// own `data.status` on every real notification that carries it.
struct SubscriptionRulesTests {
    static let day: TimeInterval = 86_400
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static func milliseconds(_ date: Date) -> String { String(Int64(date.timeIntervalSince1970 * 1000)) }

    /// A transaction as Apple signs it (dates in milliseconds).
    static func transaction(_ id: String, original: String = "100", product: String = "pro.monthly",
                            type: String = "Auto-Renewable Subscription", bought: Date, expires: Date?,
                            revoked: Date? = nil, signed: Date? = nil) throws -> SignedTransaction {
        var members = [#""transactionId":"\#(id)""#, #""originalTransactionId":"\#(original)""#,
                       #""productId":"\#(product)""#, #""type":"\#(type)""#,
                       #""purchaseDate":\#(milliseconds(bought))"#, #""signedDate":\#(milliseconds(signed ?? bought))"#,
                       #""environment":"Sandbox""#, #""inAppOwnershipType":"PURCHASED""#]
        if let expires { members.append(#""expiresDate":\#(milliseconds(expires))"#) }
        if let revoked { members.append(#""revocationDate":\#(milliseconds(revoked))"#) }
        return try SignedTransaction(payload: StrictJSON.parse(Array("{\(members.joined(separator: ","))}".utf8)))
    }

    static func renewal(original: String = "100", retrying: Bool, grace: Date? = nil, autoRenew: Int = 1,
                        signed: Date) throws -> SignedRenewalInfo {
        var members = [#""originalTransactionId":"\#(original)""#, #""autoRenewStatus":\#(autoRenew)"#,
                       #""autoRenewProductId":"pro.monthly""#, #""isInBillingRetryPeriod":\#(retrying)"#,
                       #""signedDate":\#(milliseconds(signed))"#]
        if let grace { members.append(#""gracePeriodExpiresDate":\#(milliseconds(grace))"#) }
        return try SignedRenewalInfo(payload: StrictJSON.parse(Array("{\(members.joined(separator: ","))}".utf8)))
    }

    static func status(_ transactions: [SignedTransaction], _ renewal: SignedRenewalInfo? = nil,
                       at instant: Date) -> SubscriptionState.Status? {
        SubscriptionRules.state(originalTransactionId: "100", transactions: transactions, renewalInfo: renewal, at: instant)?.status
    }

    @Test func everyBranchOfTheRule() throws {
        let (t0, day) = (Self.t0, Self.day)
        let month = try Self.transaction("1", bought: t0, expires: t0 + 30 * day)
        #expect(Self.status([month], at: t0 + day) == .active)
        #expect(Self.status([month], at: t0 + 30 * day) == .expired)  // expiresDate itself is past
        let retrying = try Self.renewal(retrying: true, grace: t0 + 36 * day, signed: t0 + 30 * day)
        #expect(Self.status([month], retrying, at: t0 + 31 * day) == .gracePeriod)
        #expect(Self.status([month], retrying, at: t0 + 36 * day) == .billingRetry)
        #expect(Self.status([month], try Self.renewal(retrying: true, signed: t0 + 30 * day), at: t0 + 31 * day) == .billingRetry)
        #expect(Self.status([month], try Self.renewal(retrying: false, signed: t0 + 30 * day), at: t0 + 31 * day) == .expired)
        let refunded = try Self.transaction("1", bought: t0, expires: t0 + 30 * day, revoked: t0 + day, signed: t0 + day)
        #expect(Self.status([refunded], at: t0 + 2 * day) == .revoked)

        // The most recent purchase decides: a renewal, then an upgrade to another product.
        let renewed = try Self.transaction("2", bought: t0 + 30 * day, expires: t0 + 60 * day)
        let upgrade = try Self.transaction("3", product: "pro.yearly", bought: t0 + 40 * day, expires: t0 + 405 * day)
        let state = try #require(SubscriptionRules.state(originalTransactionId: "100", transactions: [upgrade, month, renewed],
                                                         renewalInfo: nil, at: t0 + 41 * day))
        #expect(state.productId == "pro.yearly" && state.transactionId == "3" && state.status == .active && state.entitled)

        // A non-consumable is active until revoked; consumables are no entitlement.
        let lifetime = try Self.transaction("7", type: "Non-Consumable", bought: t0, expires: nil)
        #expect(Self.status([lifetime], at: t0 + 9_999 * day) == .active)
        let lifetimeRefunded = try Self.transaction("7", type: "Non-Consumable", bought: t0, expires: nil, revoked: t0 + day)
        #expect(Self.status([lifetimeRefunded], at: t0 + 2 * day) == .revoked)
        #expect(Self.status([try Self.transaction("8", type: "Consumable", bought: t0, expires: nil)], at: t0) == nil)
        #expect(SubscriptionState.Status.allCases.filter { status in
            var state = state
            state.status = status
            return state.entitled
        } == [.active, .gracePeriod])
    }

    /// A refund and its reversal, a renewal and its renewal info, each delivered several times
    /// in 1 000 random orders: the same snapshots and the same status every time; a snapshot
    /// signed earlier never replaces a later one.
    @Test func theSameAnswerInEveryOrder() throws {
        let (t0, day) = (Self.t0, Self.day)
        let bought = try Self.transaction("1", bought: t0, expires: t0 + 30 * day)
        let refund = try Self.transaction("1", bought: t0, expires: t0 + 30 * day, revoked: t0 + day, signed: t0 + day)
        let reversed = try Self.transaction("1", bought: t0, expires: t0 + 30 * day, signed: t0 + day + 4 * 3600)
        let renewed = try Self.transaction("2", bought: t0 + 30 * day, expires: t0 + 60 * day)
        let retry = try Self.renewal(retrying: true, grace: t0 + 36 * day, signed: t0 + 30 * day)
        let recovered = try Self.renewal(retrying: false, signed: t0 + 32 * day)
        let events: [Either] = [.transaction(bought), .transaction(refund), .transaction(reversed), .transaction(renewed),
                                .renewal(retry), .renewal(recovered)]
        var generator = SystemRandomNumberGenerator()
        var answers: Set<[SubscriptionState]> = []
        for _ in 0..<1_000 {
            var deliveries = events + (0..<Int.random(in: 0...6, using: &generator)).map { _ in events.randomElement(using: &generator)! }
            deliveries.shuffle(using: &generator)
            var snapshots = SubscriptionSnapshots()
            for delivery in deliveries {
                switch delivery {
                case .transaction(let transaction): snapshots.record(transaction)
                case .renewal(let renewal): snapshots.record(renewal)
                }
            }
            #expect(snapshots.transactions["1"]?.revocationDate == nil, "the reversal, signed last, stays")
            #expect(snapshots.renewalInfos["100"]?.isInBillingRetryPeriod == false)
            answers.insert(snapshots.subscriptions(at: t0 + 33 * day))
        }
        #expect(answers.count == 1)
        #expect(answers.first?.first?.status == .active)
        #expect(answers.first?.first?.transactionId == "2")
    }

    enum Either { case transaction(SignedTransaction), renewal(SignedRenewalInfo) }

    /// Every real notification that carries `data.status` and a transaction: the status computed
    /// from that notification alone, at its signedDate, is Apple's. Two carry an older
    /// transaction than the one Apple's status describes: the CONSUMPTION_REQUEST and the REFUND
    /// of 2025-10-16 are about 2000001032604840 (bought 2025-10-13, expired), while the
    /// subscription had been bought again three minutes before (2000001035288486, the
    /// SUBSCRIBED-RESUBSCRIBE of 05:16:32), so Apple says active. For those, the snapshots of every
    /// notification of that subscription signed up to theirs give Apple's status.
    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
    func appleSaysTheSameStatusInEveryRealNotification() throws {
        let folder = Paths.corpus.appendingPathComponent("jws/tokens")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("-notification-") }.sorted()
        let aboutAnOlderTransaction: Set = ["sandbox-notification-20251016T051901-CONSUMPTION_REQUEST.jws",
                                            "sandbox-notification-20251016T052202-REFUND.jws"]
        var notifications: [(name: String, signed: Date, status: SubscriptionStatus, transaction: SignedTransaction, renewal: SignedRenewalInfo?)] = []
        for name in names {
            let inspection = SignedDataVerifier().inspect([UInt8](try Data(contentsOf: folder.appendingPathComponent(name))))
            guard case .notification(let notification)? = inspection.decoded, let appleStatus = notification.data?.status,
                  let signed = notification.signedDate else { continue }
            #expect(inspection.verdict == .verified, "\(name)")
            var transaction: SignedTransaction?
            var renewal: SignedRenewalInfo?
            for nested in inspection.nested {
                switch nested.decoded {
                case .transaction(let decoded)?: transaction = decoded
                case .renewalInfo(let decoded)?: renewal = decoded
                default: break
                }
            }
            guard let transaction else { continue }
            notifications.append((name, signed, appleStatus, transaction, renewal))
        }
        #expect(notifications.count >= 10, "\(notifications.count) notifications compared")
        for notification in notifications {
            let original = try #require(notification.transaction.originalTransactionId)
            let alone = SubscriptionRules.state(originalTransactionId: original, transactions: [notification.transaction],
                                                renewalInfo: notification.renewal, at: notification.signed)
            guard aboutAnOlderTransaction.contains(notification.name) else {
                #expect(alone?.status.appleStatus == notification.status,
                        "\(notification.name): \(alone.map { "\($0.status)" } ?? "none") against Apple's \(notification.status)")
                continue
            }
            #expect(alone?.status.appleStatus != notification.status, "\(notification.name) no longer needs its history")
            var snapshots = SubscriptionSnapshots()
            for earlier in notifications where earlier.signed <= notification.signed && earlier.transaction.originalTransactionId == original {
                snapshots.record(earlier.transaction)
                if let renewal = earlier.renewal { snapshots.record(renewal) }
            }
            let state = snapshots.subscriptions(at: notification.signed).first { $0.originalTransactionId == original }
            #expect(state?.status.appleStatus == notification.status, "\(notification.name) with its history")
            #expect(state?.transactionId == "2000001035288486")
        }
    }
}
