import Foundation
import ReceiptParser

/// The statements `DatabaseLedgerStore` runs, the same text on every database (each driver renders
/// the placeholders its way, `LedgerPlaceholders`). No `?` may appear except as a placeholder.
enum LedgerSQL {
    static let insertSeen = """
        INSERT INTO ledger_transactions (transaction_id, original_transaction_id, product_id, bundle_id,
            environment, purchase_date_ms, expires_date_ms, source, app_account_token, first_seen_at_ms, subscription_key)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (transaction_id) DO UPDATE SET app_account_token = excluded.app_account_token
        WHERE ledger_transactions.app_account_token IS NULL AND excluded.app_account_token IS NOT NULL
        """
    static let markRevoked = """
        UPDATE ledger_transactions SET revoked_at_ms = ?, revocation_reason = ?
        WHERE transaction_id = ? AND revoked_at_ms IS NULL
        """
    static let clearRevocation = """
        UPDATE ledger_transactions SET revoked_at_ms = NULL, revocation_reason = NULL WHERE transaction_id = ?
        """
    static let isSeen = "SELECT 1 FROM ledger_transactions WHERE transaction_id = ?"
    // A snapshot replaces the one held only when signed later or, at the same instant, when its
    // bytes are larger (`SubscriptionSnapshot.supersedes`), decided under the row's lock; the same
    // snapshot with a revocation (a REVOKE's decision) replaces it without one. With it goes the
    // sighting's revocation, or none.
    static let upsertTransactionSnapshot = """
        INSERT INTO ledger_transaction_snapshots (transaction_id, original_transaction_id, signed_date_ms, snapshot,
            revoked_at_ms, revocation_reason, entitles, purchase_date_ms)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (transaction_id) DO UPDATE SET original_transaction_id = excluded.original_transaction_id,
            signed_date_ms = excluded.signed_date_ms, snapshot = excluded.snapshot,
            revoked_at_ms = excluded.revoked_at_ms, revocation_reason = excluded.revocation_reason,
            entitles = excluded.entitles, purchase_date_ms = excluded.purchase_date_ms
        WHERE excluded.signed_date_ms > ledger_transaction_snapshots.signed_date_ms
            OR (excluded.signed_date_ms = ledger_transaction_snapshots.signed_date_ms
                AND (excluded.snapshot > ledger_transaction_snapshots.snapshot
                    OR (excluded.snapshot = ledger_transaction_snapshots.snapshot
                        AND excluded.revoked_at_ms IS NOT NULL AND ledger_transaction_snapshots.revoked_at_ms IS NULL)))
        """
    static let upsertRenewalSnapshot = """
        INSERT INTO ledger_renewal_snapshots (original_transaction_id, signed_date_ms, snapshot) VALUES (?, ?, ?)
        ON CONFLICT (original_transaction_id) DO UPDATE SET
            signed_date_ms = excluded.signed_date_ms, snapshot = excluded.snapshot
        WHERE excluded.signed_date_ms > ledger_renewal_snapshots.signed_date_ms
            OR (excluded.signed_date_ms = ledger_renewal_snapshots.signed_date_ms
                AND excluded.snapshot > ledger_renewal_snapshots.snapshot)
        """
    // A transaction's revocation is its held snapshot's: a REFUND retried after its
    // REFUND_REVERSED changes nothing, whichever order they came in.
    static let revocationOfHeldSnapshot = """
        UPDATE ledger_transactions SET
            revoked_at_ms = (SELECT s.revoked_at_ms FROM ledger_transaction_snapshots s
                WHERE s.transaction_id = ledger_transactions.transaction_id),
            revocation_reason = (SELECT s.revocation_reason FROM ledger_transaction_snapshots s
                WHERE s.transaction_id = ledger_transactions.transaction_id)
        WHERE transaction_id = ?
        """
    /// A subscription's snapshots in one statement: its renewal info ('r') and its transactions
    /// ('t', with whether each entitles and its purchase date, v9), in no set order
    /// (`SubscriptionSnapshots` keeps the same whatever the order; an ORDER BY made SQLite build a
    /// temporary B-tree on each call). Binds the original transaction id twice.
    static let snapshotsOfSubscription = """
        SELECT 'r', snapshot, NULL, NULL FROM ledger_renewal_snapshots WHERE original_transaction_id = ?
        UNION ALL
        SELECT 't', snapshot, entitles, purchase_date_ms FROM ledger_transaction_snapshots WHERE original_transaction_id = ?
        """
    /// Whether the transaction `t` may go to the user bound in second place: it is not revoked (a
    /// refund before any credit means never), and no transaction of its subscription carries an
    /// appAccountToken, as recorded from any input, other than this user's. The database itself
    /// refuses the wrong user, also racing another request.
    private static let creditable = """
        t.revoked_at_ms IS NULL
            AND NOT EXISTS (SELECT 1 FROM ledger_transactions x
                WHERE x.subscription_key = t.subscription_key AND x.app_account_token IS NOT NULL
                    AND x.app_account_token NOT IN (SELECT u.app_account_token FROM ledger_users u WHERE u.user_id = ?))
        """
    /// The subscription's first credited user owns it, and all its renewals, from then on.
    static let claimSubscription = """
        INSERT INTO ledger_subscription_owners (subscription_key, user_id, since_ms)
        SELECT t.subscription_key, ?, ? FROM ledger_transactions t
        WHERE t.transaction_id = ? AND \(creditable)
        ON CONFLICT (subscription_key) DO NOTHING
        """
    /// A credit goes only to the subscription's owner.
    static let insertCredit = """
        INSERT INTO ledger_credits (transaction_id, user_id, credited_at_ms)
        SELECT t.transaction_id, ?, ? FROM ledger_transactions t
        WHERE t.transaction_id = ? AND \(creditable)
            AND EXISTS (SELECT 1 FROM ledger_subscription_owners o WHERE o.subscription_key = t.subscription_key AND o.user_id = ?)
        ON CONFLICT (transaction_id) DO NOTHING
        """
    /// Who holds a transaction's credit (NULL: nobody), whether it is revoked, and who owns its
    /// subscription (NULL: nobody).
    static let claimState = """
        SELECT c.user_id, t.revoked_at_ms, o.user_id FROM ledger_transactions t
        LEFT JOIN ledger_credits c ON c.transaction_id = t.transaction_id
        LEFT JOIN ledger_subscription_owners o ON o.subscription_key = t.subscription_key
        WHERE t.transaction_id = ?
        """
    /// A transaction's subscription key, and every appAccountToken recorded on its subscription
    /// with the user bound to it (NULL: nobody), in no set order; no token, one row of NULLs.
    static let subscriptionTokens = """
        SELECT t.subscription_key, x.app_account_token, u.user_id FROM ledger_transactions t
        LEFT JOIN ledger_transactions x ON x.subscription_key = t.subscription_key AND x.app_account_token IS NOT NULL
        LEFT JOIN ledger_users u ON u.app_account_token = x.app_account_token
        WHERE t.transaction_id = ?
        """
    static let insertUser = """
        INSERT INTO ledger_users (user_id, app_account_token) VALUES (?, ?) ON CONFLICT DO NOTHING
        """
    static let tokenOfUser = "SELECT app_account_token FROM ledger_users WHERE user_id = ?"
    static let userOfToken = "SELECT user_id FROM ledger_users WHERE app_account_token = ?"
    /// Missed orders: never credited, and of a subscription nobody owns, by a credit or by an
    /// appAccountToken bound to a user.
    static let uncredited = """
        SELECT t.transaction_id, t.original_transaction_id, t.product_id, t.bundle_id, t.environment,
            t.purchase_date_ms, t.expires_date_ms, t.source, t.app_account_token, t.first_seen_at_ms,
            t.revoked_at_ms, t.revocation_reason
        FROM ledger_transactions t LEFT JOIN ledger_credits c ON c.transaction_id = t.transaction_id
        WHERE c.transaction_id IS NULL AND t.first_seen_at_ms < ?
            AND NOT EXISTS (SELECT 1 FROM ledger_subscription_owners o WHERE o.subscription_key = t.subscription_key)
            AND NOT EXISTS (SELECT 1 FROM ledger_transactions x JOIN ledger_users u ON u.app_account_token = x.app_account_token
                WHERE x.subscription_key = t.subscription_key)
        ORDER BY t.first_seen_at_ms, t.transaction_id
        LIMIT ?
        """
    /// The subscriptions a user owns, by original transaction id, repeated (once per credit or
    /// token-bearing transaction): by a credit, or by an appAccountToken bound to them on a
    /// subscription nobody else was credited. Owners are found through the user's credits (the
    /// index by user on credits; owners have none, v8): an owner is written only with its credit
    /// (`claimSubscription`, then `insertCredit`, in one transaction), or from one (v3). A credit
    /// to someone else than its subscription's owner (made before v3) owns nothing. UNION ALL, not
    /// UNION or `IN (…)`: SQLite would build temporary B-trees on each call to remove the repeats,
    /// which the caller skips instead. Binds the user twice.
    static let subscriptionsOwnedBy = """
        SELECT t.subscription_key FROM ledger_credits c
        JOIN ledger_transactions t ON t.transaction_id = c.transaction_id
        JOIN ledger_subscription_owners o ON o.subscription_key = t.subscription_key AND o.user_id = c.user_id
        WHERE c.user_id = ?
        UNION ALL SELECT x.subscription_key FROM ledger_users u JOIN ledger_transactions x ON x.app_account_token = u.app_account_token
        WHERE u.user_id = ? AND NOT EXISTS (SELECT 1 FROM ledger_subscription_owners o2
            WHERE o2.subscription_key = x.subscription_key AND o2.user_id <> u.user_id)
        """
    /// Who owns a subscription, one row, NULL for nobody: its first credited user, else the user
    /// bound to an appAccountToken it carries (the first by transaction id: MIN, as ORDER BY …
    /// LIMIT 1 made SQLite build a temporary B-tree on each call). Binds the subscription twice.
    static let ownerOfSubscription = """
        SELECT COALESCE((SELECT user_id FROM ledger_subscription_owners WHERE subscription_key = ?),
            (SELECT u.user_id FROM ledger_transactions x JOIN ledger_users u ON u.app_account_token = x.app_account_token
                WHERE x.transaction_id = (SELECT MIN(x2.transaction_id) FROM ledger_transactions x2
                    JOIN ledger_users u2 ON u2.app_account_token = x2.app_account_token WHERE x2.subscription_key = ?)))
        """
    static let creditsOfUser = """
        SELECT c.transaction_id, c.user_id, c.credited_at_ms, t.product_id, t.revoked_at_ms, t.revocation_reason
        FROM ledger_credits c JOIN ledger_transactions t ON t.transaction_id = c.transaction_id
        WHERE c.user_id = ?
        ORDER BY c.credited_at_ms, c.transaction_id
        LIMIT ?
        """
    static let revokedCredits = """
        SELECT c.transaction_id, c.user_id, c.credited_at_ms, t.product_id, t.revoked_at_ms, t.revocation_reason
        FROM ledger_credits c JOIN ledger_transactions t ON t.transaction_id = c.transaction_id
        WHERE t.revoked_at_ms IS NOT NULL
        ORDER BY t.revoked_at_ms DESC, c.transaction_id
        LIMIT ?
        """
}

extension LedgerSQL {
    // The migrations' own bookkeeping, applied in the same write transaction as the migrations so
    // that two processes opening one new database cannot both apply a step.
    static let createMigrationsTable = """
        CREATE TABLE IF NOT EXISTS ledger_schema_migrations (
            identifier TEXT NOT NULL PRIMARY KEY,
            applied_at_ms BIGINT NOT NULL
        )
        """
    static let appliedMigrations = "SELECT identifier FROM ledger_schema_migrations"
    static let appliedMigrationsInOrder = appliedMigrations + " ORDER BY applied_at_ms, identifier"
    static let insertMigration = "INSERT INTO ledger_schema_migrations (identifier, applied_at_ms) VALUES (?, ?)"
}

extension LedgerSQL {
    /// What recording one sighting writes, the same on every database: the transaction (its first
    /// sighting kept, but for an appAccountToken it lacked, which a later JWS of it supplies); its
    /// signed snapshot, kept if the latest, with the sighting's revocation or none taken then; a
    /// sighting without a snapshot only adds a revocation it carries (the first one kept).
    static func recordSeen(_ transaction: LedgerTransaction, firstSeenAt: Date) -> [LedgerStatement] {
        var statements = [LedgerStatement(sql: insertSeen, values: [
            .text(transaction.transactionId), .text(transaction.originalTransactionId), .text(transaction.productId),
            .text(transaction.bundleId), .text(transaction.environment),
            .integer(transaction.purchaseDate.map(LedgerDate.milliseconds)),
            .integer(transaction.expiresDate.map(LedgerDate.milliseconds)),
            .text(transaction.source.rawValue), .text(transaction.appAccountToken),
            .integer(LedgerDate.milliseconds(firstSeenAt)), .text(transaction.subscriptionKey),
        ])]
        if let snapshot = transaction.snapshot {
            statements.append(LedgerStatement(sql: upsertTransactionSnapshot, values: [
                .text(transaction.transactionId), .text(snapshot.subscriptionKey ?? transaction.transactionId),
                .integer(LedgerDate.milliseconds(snapshot.signedDate ?? .distantPast)), .bytes(snapshot.snapshotBytes),
                .integer(transaction.revocationDate.map(LedgerDate.milliseconds)),
                .text(transaction.revocationDate == nil ? nil : transaction.revocationReason ?? "revoked"),
                .integer(SubscriptionRules.entitles(snapshot) ? 1 : 0), .integer(snapshot.purchaseDate.map(LedgerDate.milliseconds)),
            ]))
            statements.append(LedgerStatement(sql: revocationOfHeldSnapshot, values: [.text(transaction.transactionId)]))
        } else if let revoked = transaction.revocationDate {
            statements.append(LedgerStatement(sql: markRevoked, values: [
                .integer(LedgerDate.milliseconds(revoked)), .text(transaction.revocationReason ?? "revoked"),
                .text(transaction.transactionId),
            ]))
        }
        return statements
    }

    /// Keeping a subscription's renewal info, if it is the latest.
    static func recordRenewal(_ renewalInfo: SignedRenewalInfo) -> LedgerStatement? {
        guard let original = renewalInfo.originalTransactionId else { return nil }
        return LedgerStatement(sql: upsertRenewalSnapshot, values: [
            .text(original), .integer(LedgerDate.milliseconds(renewalInfo.signedDate ?? .distantPast)), .bytes(renewalInfo.snapshotBytes),
        ])
    }

    /// Logging a notification: its first delivery with whether it was stale (it carried snapshots,
    /// and none of them is the one held after recording them); a repeat counts a delivery.
    static func logNotification(_ notification: LedgerNotification, transaction: SignedTransaction?,
                                renewalInfo: SignedRenewalInfo?, at now: Date) -> LedgerStatement {
        let received = LedgerDate.milliseconds(now)
        return LedgerStatement(sql: insertNotification, values: [
            .text(notification.notificationUUID), .text(notification.notificationType), .text(notification.subtype),
            .integer(notification.signedDate.map(LedgerDate.milliseconds)), .text(notification.originalTransactionId),
            .text(notification.transactionId),
            .text(transaction?.transactionId), .bytes(transaction?.snapshotBytes),
            .text(renewalInfo?.originalTransactionId), .bytes(renewalInfo?.snapshotBytes),
            .integer(transaction == nil && renewalInfo == nil ? 0 : 1),
            .integer(received), .integer(received),
        ])
    }
}

extension LedgerSQL {
    static let insertNotification = """
        INSERT INTO ledger_notifications (notification_uuid, notification_type, subtype, signed_date_ms,
            original_transaction_id, transaction_id, deliveries, stale, first_received_at_ms, last_received_at_ms)
        VALUES (?, ?, ?, ?, ?, ?, 1,
            CASE WHEN EXISTS (SELECT 1 FROM ledger_transaction_snapshots s WHERE s.transaction_id = ? AND s.snapshot = ?)
                OR EXISTS (SELECT 1 FROM ledger_renewal_snapshots r WHERE r.original_transaction_id = ? AND r.snapshot = ?)
                OR ? = 0 THEN 0 ELSE 1 END,
            ?, ?)
        ON CONFLICT (notification_uuid) DO UPDATE SET deliveries = ledger_notifications.deliveries + 1,
            last_received_at_ms = excluded.last_received_at_ms
        """
    private static let notificationColumns = """
        SELECT notification_uuid, notification_type, subtype, signed_date_ms, original_transaction_id, transaction_id,
            deliveries, stale, first_received_at_ms, last_received_at_ms FROM ledger_notifications
        """
    static let notifications = notificationColumns + " ORDER BY first_received_at_ms DESC, notification_uuid LIMIT ?"
    static let notificationsOfSubscription = notificationColumns
        + " WHERE original_transaction_id = ? ORDER BY first_received_at_ms DESC, notification_uuid LIMIT ?"
}
