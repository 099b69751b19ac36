import Foundation

/// The webhook outbox's statements (`LedgerSchema` v5).
extension LedgerSQL {
    /// Who holds a transaction's credit, its revocation, product and subscription.
    static let eventFactsOfTransaction = """
        SELECT c.user_id, t.revoked_at_ms, t.revocation_reason, t.product_id, t.subscription_key FROM ledger_transactions t
        LEFT JOIN ledger_credits c ON c.transaction_id = t.transaction_id
        WHERE t.transaction_id = ?
        """
    static let subscriptionsWithToken = "SELECT DISTINCT subscription_key FROM ledger_transactions WHERE app_account_token = ?"
    /// The `next_attempt_at_ms` of an event behind an earlier pending event of its user: never
    /// due, so that claims do not read the events that wait behind a user's event in backoff
    /// (a user's receiver down for a day holds thousands). Whatever finishes a user's pending
    /// event promotes the next one (`promoteWebhookQueue`), so a user's first pending event is
    /// never waiting.
    static let waitingBehindEarlierEvent = Int64.max
    /// Binds: id, user, type, body, created at, user, id, `waitingBehindEarlierEvent`, now. The
    /// event waits when an earlier event of its user is pending, else it is due now. One row of
    /// VALUES, not INSERT … SELECT: SQLite gives a statement that may write several rows a
    /// statement journal, whose buffers it allocates and frees on every execution (a fifth of
    /// the writer's time during notification ingest, most of it the kernel mapping and
    /// unmapping the buffers' pages).
    static let insertWebhookEvent = """
        INSERT INTO ledger_webhook_events (event_id, user_id, event_type, body, created_at_ms, state, attempts, next_attempt_at_ms)
        VALUES (?, ?, ?, ?, ?, 'pending', 0, CASE WHEN EXISTS (SELECT 1 FROM ledger_webhook_events
                WHERE user_id = ? AND state = 'pending' AND event_id < ?) THEN ? ELSE ? END)
        """
    /// Makes a user's first pending event due now if it was waiting. Binds: now, user,
    /// `waitingBehindEarlierEvent`.
    static let promoteWebhookQueue = """
        UPDATE ledger_webhook_events SET next_attempt_at_ms = ?
        WHERE event_id = (SELECT MIN(event_id) FROM ledger_webhook_events WHERE user_id = ? AND state = 'pending')
            AND next_attempt_at_ms = ?
        """
    /// The last id of the next `limit` waiting events after an id, in id order. Binds:
    /// `waitingBehindEarlierEvent`, the id, `limit`.
    static let waitingWebhookEventsChunkEnd = """
        SELECT MAX(event_id) FROM (SELECT event_id FROM ledger_webhook_events
            WHERE state = 'pending' AND next_attempt_at_ms = ? AND event_id > ? ORDER BY event_id LIMIT ?) chunk
        """
    /// Makes due the waiting events with ids in a range that no earlier pending event of their
    /// user holds back. Binds: now, `waitingBehindEarlierEvent`, after, through.
    static let releaseStrandedWebhookEvents = """
        UPDATE ledger_webhook_events SET next_attempt_at_ms = ?
        WHERE state = 'pending' AND next_attempt_at_ms = ? AND event_id > ? AND event_id <= ?
            AND NOT EXISTS (SELECT 1 FROM ledger_webhook_events p
                WHERE p.user_id = ledger_webhook_events.user_id AND p.state = 'pending' AND p.event_id < ledger_webhook_events.event_id)
        """
    /// Leases the due events that are first in line for their user (no earlier one of theirs is
    /// pending) and that nobody holds a lease on. Binds: now, now, limit, worker, until, now.
    ///
    /// The pick ends with `lockClause` (`LedgerDriver.lockingSkippingLockedRows`): on PostgreSQL it
    /// locks the events it picks and passes over those another transaction holds, so a claim never
    /// waits. A plain UPDATE would: it locks a row that changed since its snapshot (another server
    /// claimed it) before it re-checks it, keeps the lock when the row no longer matches, and takes
    /// rows in no set order. It could then hold an event that another server's finish waits for
    /// while it waits for one that finish holds, a circle PostgreSQL breaks by failing one of them
    /// (seen under load: the finish failed, and its delivered events were sent again). The pick is a
    /// WITH query, run once (PostgreSQL does not fold a locking one into the UPDATE): a subquery in
    /// the UPDATE's WHERE may run again for each row, and lease more than `limit`.
    ///
    /// Waiting events are never due, and the due index is read in its own order (longest due
    /// first), so the scan reads the due events only, however many wait; the NOT EXISTS still holds
    /// the order when a retried event or an event with an earlier id is pending too. The outer
    /// re-check spells `state || ''` so that no index serves it: SQLite without statistics would
    /// otherwise walk the due index for every pending row, waiting ones included, instead of
    /// looking up the ids the pick chose.
    static func claimWebhookEvents(lockClause: String) -> String {
        """
        WITH picked AS (
            SELECT e.event_id FROM ledger_webhook_events e
            WHERE e.state = 'pending' AND e.next_attempt_at_ms <= ? AND (e.claimed_until_ms IS NULL OR e.claimed_until_ms < ?)
                AND NOT EXISTS (SELECT 1 FROM ledger_webhook_events p
                    WHERE p.user_id = e.user_id AND p.state = 'pending' AND p.event_id < e.event_id)
            ORDER BY e.next_attempt_at_ms, e.event_id
            LIMIT ? \(lockClause))
        UPDATE ledger_webhook_events SET claimed_by = ?, claimed_until_ms = ?
        WHERE event_id IN (SELECT event_id FROM picked)
            AND state || '' = 'pending' AND (claimed_until_ms IS NULL OR claimed_until_ms < ?)
        """
    }
    static let claimedWebhookEvents = """
        SELECT event_id, user_id, event_type, body, attempts FROM ledger_webhook_events
        WHERE claimed_by = ? AND state = 'pending' ORDER BY event_id
        """
    /// Answers the event's user, whose queue then moves on.
    static let webhookDelivered = """
        UPDATE ledger_webhook_events SET state = 'delivered', attempts = attempts + 1, claimed_by = NULL, claimed_until_ms = NULL,
            last_error = NULL, finished_at_ms = ?
        WHERE event_id = ? AND claimed_by = ?
        RETURNING user_id
        """
    /// A failed attempt: tried again at `next_attempt_at_ms`, or, after the last one, failed.
    /// Answers the event's user.
    static let webhookAttemptFailed = """
        UPDATE ledger_webhook_events SET state = ?, attempts = attempts + 1, claimed_by = NULL, claimed_until_ms = NULL,
            last_error = ?, next_attempt_at_ms = ?, finished_at_ms = ?
        WHERE event_id = ? AND claimed_by = ?
        RETURNING user_id
        """
    static let failedWebhookEvents = """
        SELECT event_id, user_id, event_type, body, attempts, last_error, finished_at_ms FROM ledger_webhook_events
        WHERE state = 'failed' ORDER BY event_id LIMIT ?
        """
    static let retryWebhookEvent = """
        UPDATE ledger_webhook_events SET state = 'pending', next_attempt_at_ms = ?, finished_at_ms = NULL
        WHERE event_id = ? AND state = 'failed'
        """
    static let webhookEventStates = "SELECT event_id, state, attempts FROM ledger_webhook_events ORDER BY event_id"
}
