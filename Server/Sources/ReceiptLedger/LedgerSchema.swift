import Foundation

/// The ledger's schema as versioned migrations, in SQL that SQLite and PostgreSQL both accept (TEXT,
/// BIGINT, BYTEA, PRIMARY KEY, UNIQUE, REFERENCES), so a PostgreSQL store can apply the same steps.
/// Dates are BIGINT milliseconds since 1970: exact, and the same on both databases. Snapshots are
/// BYTEA (in SQLite a BLOB under that name): both databases compare them byte for byte, as
/// `SubscriptionSnapshot.supersedes` does, whatever the database's collation.
/// Append new migrations; never edit one that has shipped.
public enum LedgerSchema {
    public struct Migration: Sendable {
        public let identifier: String
        public let statements: [String]
    }

    public static let migrations: [Migration] = [
        Migration(identifier: "v1-transactions-credits-users", statements: [
            """
            CREATE TABLE ledger_transactions (
                transaction_id TEXT NOT NULL PRIMARY KEY,
                original_transaction_id TEXT,
                product_id TEXT,
                bundle_id TEXT,
                environment TEXT NOT NULL,
                purchase_date_ms BIGINT,
                expires_date_ms BIGINT,
                source TEXT NOT NULL CHECK (source IN ('receipt', 'jws')),
                app_account_token TEXT,
                first_seen_at_ms BIGINT NOT NULL,
                revoked_at_ms BIGINT,
                revocation_reason TEXT
            )
            """,
            "CREATE INDEX ledger_transactions_first_seen ON ledger_transactions (first_seen_at_ms)",
            // The primary key is what makes a credit happen once, ever.
            """
            CREATE TABLE ledger_credits (
                transaction_id TEXT NOT NULL PRIMARY KEY REFERENCES ledger_transactions (transaction_id),
                user_id TEXT NOT NULL,
                credited_at_ms BIGINT NOT NULL
            )
            """,
            "CREATE INDEX ledger_credits_user ON ledger_credits (user_id)",
            """
            CREATE TABLE ledger_users (
                user_id TEXT NOT NULL PRIMARY KEY,
                app_account_token TEXT NOT NULL UNIQUE
            )
            """,
        ]),
        // The latest signed word on each transaction and each subscription's renewal info
        // (`SubscriptionSnapshot`): what subscription status is computed from.
        Migration(identifier: "v2-snapshots", statements: [
            """
            CREATE TABLE ledger_transaction_snapshots (
                transaction_id TEXT NOT NULL PRIMARY KEY REFERENCES ledger_transactions (transaction_id),
                original_transaction_id TEXT NOT NULL,
                signed_date_ms BIGINT NOT NULL,
                snapshot BYTEA NOT NULL,
                revoked_at_ms BIGINT,
                revocation_reason TEXT
            )
            """,
            "CREATE INDEX ledger_transaction_snapshots_original ON ledger_transaction_snapshots (original_transaction_id)",
            """
            CREATE TABLE ledger_renewal_snapshots (
                original_transaction_id TEXT NOT NULL PRIMARY KEY,
                signed_date_ms BIGINT NOT NULL,
                snapshot BYTEA NOT NULL
            )
            """,
        ]),
        // Ownership follows the original transaction: a subscription (every transaction sharing a
        // `subscription_key`, its original transaction id or else its own id) belongs to the user
        // first credited any of it. Ledgers made before take the user of each key's first credit.
        Migration(identifier: "v3-subscription-owners", statements: [
            "ALTER TABLE ledger_transactions ADD COLUMN subscription_key TEXT",
            "UPDATE ledger_transactions SET subscription_key = COALESCE(original_transaction_id, transaction_id)",
            "CREATE INDEX ledger_transactions_subscription ON ledger_transactions (subscription_key)",
            "CREATE INDEX ledger_transactions_token ON ledger_transactions (app_account_token)",
            """
            CREATE TABLE ledger_subscription_owners (
                subscription_key TEXT NOT NULL PRIMARY KEY,
                user_id TEXT NOT NULL,
                since_ms BIGINT NOT NULL
            )
            """,
            "CREATE INDEX ledger_subscription_owners_user ON ledger_subscription_owners (user_id)",
            """
            INSERT INTO ledger_subscription_owners (subscription_key, user_id, since_ms)
            SELECT t.subscription_key, c.user_id, c.credited_at_ms
            FROM ledger_credits c JOIN ledger_transactions t ON t.transaction_id = c.transaction_id
            WHERE NOT EXISTS (SELECT 1 FROM ledger_credits c2 JOIN ledger_transactions t2 ON t2.transaction_id = c2.transaction_id
                WHERE t2.subscription_key = t.subscription_key
                    AND (c2.credited_at_ms < c.credited_at_ms OR (c2.credited_at_ms = c.credited_at_ms AND c2.transaction_id < c.transaction_id)))
            """,
        ]),
        // Every verified notification once, by notificationUUID, with its deliveries.
        Migration(identifier: "v4-notification-log", statements: [
            """
            CREATE TABLE ledger_notifications (
                notification_uuid TEXT NOT NULL PRIMARY KEY,
                notification_type TEXT,
                subtype TEXT,
                signed_date_ms BIGINT,
                original_transaction_id TEXT,
                transaction_id TEXT,
                deliveries BIGINT NOT NULL,
                stale BIGINT NOT NULL,
                first_received_at_ms BIGINT NOT NULL,
                last_received_at_ms BIGINT NOT NULL
            )
            """,
            "CREATE INDEX ledger_notifications_received ON ledger_notifications (first_received_at_ms)",
            "CREATE INDEX ledger_notifications_original ON ledger_notifications (original_transaction_id, first_received_at_ms)",
        ]),
        // Webhooks out: each event written in the same transaction as the change it reports, then
        // delivered (`state` pending, delivered or failed) in `event_id` order per user. A delivery
        // worker leases events (`claimed_by` until `claimed_until_ms`), so that several servers
        // deliver each once and a killed one's lease runs out.
        Migration(identifier: "v5-webhook-outbox", statements: [
            """
            CREATE TABLE ledger_webhook_events (
                event_id TEXT NOT NULL PRIMARY KEY,
                user_id TEXT NOT NULL,
                event_type TEXT NOT NULL,
                body BYTEA NOT NULL,
                created_at_ms BIGINT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                attempts BIGINT NOT NULL,
                next_attempt_at_ms BIGINT NOT NULL,
                claimed_by TEXT,
                claimed_until_ms BIGINT,
                last_error TEXT,
                finished_at_ms BIGINT
            )
            """,
            "CREATE INDEX ledger_webhook_events_due ON ledger_webhook_events (state, next_attempt_at_ms)",
            "CREATE INDEX ledger_webhook_events_user ON ledger_webhook_events (user_id, state, event_id)",
        ]),
        // Healing from Apple's notification history: how far it has been applied (`checkpoint_ms`),
        // who runs a cycle now (a lease, so several servers run one at a time) and how the last
        // went; and the request budgets the servers share.
        Migration(identifier: "v6-reconcile", statements: [
            """
            CREATE TABLE ledger_reconcile (
                name TEXT NOT NULL PRIMARY KEY,
                checkpoint_ms BIGINT,
                lease_holder TEXT,
                lease_until_ms BIGINT,
                last_started_ms BIGINT,
                last_finished_ms BIGINT,
                last_fetched BIGINT,
                last_applied BIGINT,
                last_repeats BIGINT,
                last_refused BIGINT,
                last_error TEXT
            )
            """,
            // The App Store Server API's request budgets, shared by every server on the ledger:
            // each endpoint's last departures (UNIX milliseconds, comma-separated) and Retry-After.
            """
            CREATE TABLE ledger_api_budget (
                budget_key TEXT NOT NULL PRIMARY KEY,
                departures TEXT NOT NULL,
                blocked_until_ms BIGINT
            )
            """,
        ]),
        // An event behind an earlier pending event of its user waits (never due) until that one
        // is delivered or fails (`LedgerSQL.waitingBehindEarlierEvent`), so that claims read only
        // the due events: the events already waiting, and the due index in the claim's order.
        Migration(identifier: "v7-webhook-waiting", statements: [
            """
            UPDATE ledger_webhook_events SET next_attempt_at_ms = \(LedgerSQL.waitingBehindEarlierEvent)
            WHERE state = 'pending' AND EXISTS (SELECT 1 FROM ledger_webhook_events p
                WHERE p.user_id = ledger_webhook_events.user_id AND p.state = 'pending' AND p.event_id < ledger_webhook_events.event_id)
            """,
            "DROP INDEX ledger_webhook_events_due",
            "CREATE INDEX ledger_webhook_events_due ON ledger_webhook_events (state, next_attempt_at_ms, event_id)",
        ]),
        // One index by user, not two: a user's subscriptions are found through their credits
        // (`LedgerSQL.subscriptionsOwnedBy`), as every owner has a credit on what it owns. Each credit then writes
        // one entry keyed by user; on a large ledger each such entry dirties a leaf page of its own.
        Migration(identifier: "v8-owners-through-credits", statements: [
            "DROP INDEX ledger_subscription_owners_user",
        ]),
        // What picks a subscription's most recent transaction, beside each transaction's snapshot,
        // so that reading a status parses only that one (`LedgerRows`): whether it entitles (1, or 0
        // for a consumable or non-renewing subscription) and its purchase date. NULL in `entitles`:
        // written before v9, read by parsing the snapshot as before.
        Migration(identifier: "v9-latest-transaction", statements: [
            "ALTER TABLE ledger_transaction_snapshots ADD COLUMN entitles BIGINT",
            "ALTER TABLE ledger_transaction_snapshots ADD COLUMN purchase_date_ms BIGINT",
        ]),
    ]

    /// The migrations a database lacks, in order, each with the `applied_at_ms` to record for it:
    /// `now` plus its index, so the order stays readable when several are applied in one millisecond.
    static func pending(applied: Set<String>, at now: Date) -> [(migration: Migration, appliedAtMs: Int64)] {
        LedgerSchema.migrations.enumerated()
            .filter { !applied.contains($0.element.identifier) }
            .map { (migration: $0.element, appliedAtMs: LedgerDate.milliseconds(now) + Int64($0.offset)) }
    }
}
