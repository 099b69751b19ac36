import Foundation
import ReceiptParser

/// The one place that turns the rows of `LedgerSQL.uncredited`, `creditsOfUser`, `revokedCredits`,
/// `notifications`, `snapshotsOfSubscription`, `subscriptionsOwnedBy` and `ownerOfSubscription`
/// into values, whatever the database; the column numbers follow those statements' SELECT lists.
enum LedgerRows {
    /// The snapshots held of the subscription `key` (`LedgerSQL.snapshotsOfSubscription`); nil when none is.
    static func snapshots(ofSubscription key: String, on connection: any LedgerConnection) throws -> SubscriptionSnapshots? {
        var snapshots = SubscriptionSnapshots()
        return try record(subscription: key, into: &snapshots, on: connection) ? snapshots : nil
    }

    /// The snapshots of every subscription `user` owns (`LedgerSQL.subscriptionsOwnedBy`).
    static func snapshots(ownedBy user: String, on connection: any LedgerConnection) throws -> SubscriptionSnapshots {
        var snapshots = SubscriptionSnapshots()
        var read: Set<String> = []
        for row in try connection.rows(LedgerSQL.subscriptionsOwnedBy, .text(user), .text(user)) {
            let key = try row.requiredText(0)
            if read.insert(key).inserted { _ = try record(subscription: key, into: &snapshots, on: connection) }
        }
        return snapshots
    }

    /// Adds the snapshots held of the subscription `key` to `snapshots`; false when none is held.
    /// Of its transactions, only those that can be its most recent are parsed
    /// (`SubscriptionRules.state` reads no other): the entitling ones bought in the latest
    /// millisecond (ties go to the rule), and those written before v9, whose columns are NULL.
    private static func record(subscription key: String, into snapshots: inout SubscriptionSnapshots,
                               on connection: any LedgerConnection) throws -> Bool {
        let rows = try connection.rows(LedgerSQL.snapshotsOfSubscription, .text(key), .text(key))
        var latest = Int64.min
        for row in rows where try row.integer(2) == 1 {
            latest = max(latest, try row.integer(3) ?? .min)
        }
        for row in rows {
            if try row.requiredText(0) == "r" {
                snapshots.record(try SignedRenewalInfo(snapshotBytes: row.requiredBytes(1)))
                continue
            }
            let (entitles, bought) = (try row.integer(2), try row.integer(3) ?? .min)
            if entitles == 0 || (entitles == 1 && bought < latest) { continue }
            snapshots.record(try SignedTransaction(snapshotBytes: row.requiredBytes(1)))
        }
        return !rows.isEmpty
    }

    /// Who owns the subscription `key` (`LedgerSQL.ownerOfSubscription`), nil for nobody.
    static func owner(ofSubscription key: String, on connection: any LedgerConnection) throws -> String? {
        try connection.rows(LedgerSQL.ownerOfSubscription, .text(key), .text(key)).first?.text(0)
    }

    static func seenTransaction(_ row: LedgerRow) throws -> SeenTransaction {
        SeenTransaction(
            transaction: LedgerTransaction(
                transactionId: try row.requiredText(0), originalTransactionId: try row.text(1),
                productId: try row.text(2), bundleId: try row.text(3), environment: try row.requiredText(4),
                purchaseDate: try row.integer(5).map(LedgerDate.date),
                expiresDate: try row.integer(6).map(LedgerDate.date),
                source: TransactionSource(rawValue: try row.requiredText(7)) ?? .receipt,
                appAccountToken: try row.text(8)
            ),
            firstSeenAt: LedgerDate.date(try row.requiredInteger(9)),
            revokedAt: try row.integer(10).map(LedgerDate.date),
            revocationReason: try row.text(11)
        )
    }

    static func notification(_ row: LedgerRow) throws -> LoggedNotification {
        LoggedNotification(
            notification: LedgerNotification(
                notificationUUID: try row.requiredText(0), notificationType: try row.text(1), subtype: try row.text(2),
                signedDate: try row.integer(3).map(LedgerDate.date), originalTransactionId: try row.text(4),
                transactionId: try row.text(5)),
            deliveries: Int(try row.requiredInteger(6)), stale: try row.requiredInteger(7) != 0,
            firstReceivedAt: LedgerDate.date(try row.requiredInteger(8)), lastReceivedAt: LedgerDate.date(try row.requiredInteger(9)))
    }

    static func credit(_ row: LedgerRow) throws -> Credit {
        Credit(
            transactionId: try row.requiredText(0), user: try row.requiredText(1),
            creditedAt: LedgerDate.date(try row.requiredInteger(2)), productId: try row.text(3),
            revokedAt: try row.integer(4).map(LedgerDate.date), revocationReason: try row.text(5)
        )
    }
}
