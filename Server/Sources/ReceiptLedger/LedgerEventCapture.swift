import Foundation
import ReceiptParser

/// What a write can change that webhooks report, read inside the write's own transaction before
/// and after it: who holds each transaction's credit and whether it is revoked, and each
/// subscription's owner and status at the write's instant. `LedgerEventCapture.events(from:to:)`
/// turns the difference into events, so they commit (or not) with the change.
struct LedgerEventCapture: Equatable {
    struct Transaction: Equatable {
        var holder: String?
        var revokedAt: Int64?
        var revocationReason: String?
        var productId: String?
        var subscriptionKey: String?
    }

    struct Subscription: Equatable {
        var owner: String?
        var state: SubscriptionState?
    }

    var transactions: [String: Transaction] = [:]
    var subscriptions: [String: Subscription] = [:]

    /// Reads the facts of `transactionIds` and of `subscriptionKeys` (and of the subscriptions those
    /// transactions belong to), status at `instant`.
    static func read(transactionIds: [String], subscriptionKeys: [String], at instant: Date,
                     on connection: any LedgerConnection) throws -> LedgerEventCapture {
        var capture = LedgerEventCapture()
        var keys = subscriptionKeys
        for id in Set(transactionIds) {
            guard let row = try connection.rows(LedgerSQL.eventFactsOfTransaction, .text(id)).first else { continue }
            let facts = Transaction(holder: try row.text(0), revokedAt: try row.integer(1), revocationReason: try row.text(2),
                                    productId: try row.text(3), subscriptionKey: try row.text(4))
            capture.transactions[id] = facts
            if let key = facts.subscriptionKey { keys.append(key) }
        }
        for key in Set(keys) {
            let snapshots = try LedgerRows.snapshots(ofSubscription: key, on: connection)
            capture.subscriptions[key] = Subscription(
                owner: try LedgerRows.owner(ofSubscription: key, on: connection),
                state: snapshots?.subscriptions(at: instant).first { $0.originalTransactionId == key })
        }
        return capture
    }

    /// The events between `before` and `after`: credits made, revoked and restored (by transaction
    /// id), then entitlement statuses changed for their owners (by original transaction id).
    static func events(from before: LedgerEventCapture, to after: LedgerEventCapture, cause: LedgerEvent.Cause?) -> [LedgerEvent] {
        var events: [LedgerEvent] = []
        for (id, now) in after.transactions.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            guard let user = now.holder else { continue }
            let then = before.transactions[id]
            let kind: LedgerEvent.Kind
            if then?.holder == nil {
                kind = .creditCreated
            } else if then?.revokedAt == nil, now.revokedAt != nil {
                kind = .creditRevoked
            } else if then?.revokedAt != nil, now.revokedAt == nil {
                kind = .creditRestored
            } else {
                continue
            }
            events.append(LedgerEvent(kind: kind, user: user, details: .credit(
                transactionId: id, productId: now.productId, originalTransactionId: now.subscriptionKey,
                revokedAt: now.revokedAt.map(LedgerDate.date), revocationReason: now.revocationReason), cause: cause))
        }
        for (key, now) in after.subscriptions.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            guard let user = now.owner, let state = now.state else { continue }
            let then = before.subscriptions[key]
            // A subscription that just became this user's was, to them, nothing before.
            let previous = then?.owner == user ? then?.state : nil
            guard previous?.status != state.status || previous?.entitled != state.entitled else { continue }
            events.append(LedgerEvent(kind: .entitlementChanged, user: user,
                                      details: .entitlement(previousStatus: previous?.status, state: state), cause: cause))
        }
        return events
    }
}
