/// The reconciler's statements (`LedgerSchema` v6): one row per walk of Apple's history.
extension LedgerSQL {
    static let insertReconcile = "INSERT INTO ledger_reconcile (name) VALUES (?) ON CONFLICT (name) DO NOTHING"
    /// Takes the lease when nobody holds one or it ran out: one cycle at a time, also within one
    /// server (a cycle asked for while the scheduled one runs is refused).
    static let claimReconcile = """
        UPDATE ledger_reconcile SET lease_holder = ?, lease_until_ms = ?, last_started_ms = ?
        WHERE name = ? AND (lease_until_ms IS NULL OR lease_until_ms < ?)
        """
    /// Extends the lease of `worker`, who still holds it; no row when it was lost.
    static let renewReconcile = "UPDATE ledger_reconcile SET lease_until_ms = ? WHERE name = ? AND lease_holder = ? AND lease_until_ms >= ?"
    static let finishReconcile = """
        UPDATE ledger_reconcile SET checkpoint_ms = COALESCE(?, checkpoint_ms), lease_holder = NULL, lease_until_ms = NULL,
            last_finished_ms = ?, last_fetched = ?, last_applied = ?, last_repeats = ?, last_refused = ?, last_error = ?
        WHERE name = ? AND lease_holder = ?
        """
    static let reconcileState = """
        SELECT checkpoint_ms, lease_holder, lease_until_ms, last_started_ms, last_finished_ms, last_fetched, last_applied,
            last_repeats, last_error, last_refused FROM ledger_reconcile WHERE name = ?
        """
    static let notificationLogged = "SELECT 1 FROM ledger_notifications WHERE notification_uuid = ?"
    static let insertAPIBudget = "INSERT INTO ledger_api_budget (budget_key, departures) VALUES (?, '') ON CONFLICT (budget_key) DO NOTHING"
    /// Takes the row's lock (PostgreSQL) before it is read, so that two servers reserve in turn.
    static let lockAPIBudget = "UPDATE ledger_api_budget SET budget_key = budget_key WHERE budget_key = ?"
    static let apiBudget = "SELECT departures, blocked_until_ms FROM ledger_api_budget WHERE budget_key = ?"
    static let updateAPIBudget = "UPDATE ledger_api_budget SET departures = ?, blocked_until_ms = ? WHERE budget_key = ?"
    static let appAccountTokenOfUser = "SELECT app_account_token FROM ledger_users WHERE user_id = ?"
}
