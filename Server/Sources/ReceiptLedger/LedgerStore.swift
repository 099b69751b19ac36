import Foundation
import ReceiptParser

/// The ledger's storage. Implementations make each call atomic and enforce "credited once" in the
/// database itself (a unique key), so that several processes sharing one database stay correct.
/// Every failure of the database is thrown as `LedgerError.storageUnavailable`.
public protocol LedgerStore: Sendable {
    /// Records each transaction as seen at `now`; one already seen keeps its first record, except that
    /// it takes an appAccountToken it lacked (a receipt carries none, a JWS of it does). Each
    /// transaction's snapshot, and each renewal info, is kept when it supersedes the one held; a
    /// transaction's revocation is its latest snapshot's (a transaction without a snapshot can only
    /// add a revocation).
    func recordSeen(_ transactions: [LedgerTransaction], renewalInfos: [SignedRenewalInfo], at now: Date) async throws(LedgerError)

    /// Records a verified notification's sightings as `recordSeen` does and logs it, in one
    /// database transaction: its first delivery with whether it was stale (every snapshot it
    /// carried older than the one held), a repeat of its `notificationUUID` as one more delivery.
    func recordNotification(_ notification: LedgerNotification, seen: [LedgerTransaction], renewalInfo: SignedRenewalInfo?,
                            at now: Date) async throws(LedgerError)

    /// The logged notifications, about the subscription `originalTransactionId` when given, most
    /// recently first received first, at most `limit`.
    func notifications(originalTransactionId: String?, limit: Int) async throws(LedgerError) -> [LoggedNotification]

    /// Leases, until `until`, up to `limit` due webhook events first in line for their user (no
    /// earlier event of theirs pending) that no other worker holds, for `worker`; answers them.
    func claimWebhookEvents(for worker: String, until: Date, at now: Date, limit: Int) async throws(LedgerError) -> [WebhookEvent]

    /// Records attempts at events `worker` leased, in one transaction: each delivered; or failed and
    /// tried again at its `retryAt`, or, when nil (the last try), failed for good and listed by
    /// `failedWebhookEvents`. An event whose lease is no longer `worker`'s is left as it is.
    func finishWebhookAttempts(_ attempts: [WebhookAttempt], by worker: String, at now: Date) async throws(LedgerError)

    /// Makes due, at `now`, those of the next `limit` waiting events after the id `cursor` (nil:
    /// from the first) that no earlier pending event of their user holds back, in one write.
    /// Finishing an event moves its user's queue on, but a server older than the waiting events
    /// (v7) finishes events on the same ledger without doing so. Answers the last id looked at,
    /// the next call's cursor (nil when no waiting event is left after `cursor`), and how many
    /// events were made due.
    func releaseStrandedWebhookEvents(after cursor: String?, limit: Int, at now: Date) async throws(LedgerError)
        -> (cursor: String?, released: Int)

    /// The events whose last try failed, oldest first, at most `limit`.
    func failedWebhookEvents(limit: Int) async throws(LedgerError) -> [WebhookEvent]

    /// Sends a failed event again, from now (the same id and body); false when no event `id` failed.
    func retryWebhookEvent(_ id: String, at now: Date) async throws(LedgerError) -> Bool

    /// The snapshots held of the subscription (or non-consumable) `originalTransactionId`: every
    /// transaction under it, by transaction id, and its renewal info; nil when none is held.
    func snapshots(ofSubscription originalTransactionId: String) async throws(LedgerError) -> SubscriptionSnapshots?

    /// The snapshots of every subscription `user` owns: credited to them (any of its
    /// transactions), or carrying an appAccountToken bound to them when nobody else was credited.
    func subscriptions(ownedBy user: String) async throws(LedgerError) -> SubscriptionSnapshots

    /// Who owns the subscription `originalTransactionId`: the user credited any of its
    /// transactions first, else the user bound to an appAccountToken it carries; nil for nobody.
    func owner(ofSubscription originalTransactionId: String) async throws(LedgerError) -> String?

    /// In one database transaction, so that a credit costs one commit: records `seen` as `recordSeen`
    /// does (no renewal info); then, when a transaction of `transactionIds` has a recorded appAccountToken not bound
    /// to `user`, answers `.appAccountTokenMismatch` and credits nothing; else credits each id to
    /// `user` unless someone holds it, it is revoked, or its subscription (all transactions sharing its
    /// original transaction id) is another user's, and answers who holds each, in the order asked.
    func recordAndClaim(
        _ seen: [LedgerTransaction], claiming transactionIds: [String], for user: String, at now: Date
    ) async throws(LedgerError) -> ClaimAnswer

    /// Binds a user to an appAccountToken (lowercased UUID), permanently; binding again is a no-op.
    /// `now` dates the webhook events the binding makes (the subscriptions it makes the user's).
    func bind(user: String, appAccountToken: String, at now: Date) async throws(LedgerError)

    /// Transactions seen but never credited, first seen before `date`, oldest first, at most `limit`.
    func uncredited(firstSeenBefore date: Date, limit: Int) async throws(LedgerError) -> [SeenTransaction]

    /// A user's credits, oldest first, at most `limit`.
    func credits(of user: String, limit: Int) async throws(LedgerError) -> [Credit]

    /// Marks a seen transaction revoked; the first revocation is kept. False when it was never seen.
    func markRevoked(transactionId: String, at date: Date, reason: String) async throws(LedgerError) -> Bool

    /// Clears a transaction's revocation (a refund Apple reversed). False when it was never seen.
    func clearRevocation(transactionId: String) async throws(LedgerError) -> Bool

    /// Credits whose transaction was revoked, most recently revoked first, at most `limit`.
    func revokedCredits(limit: Int) async throws(LedgerError) -> [Credit]

    /// Takes the lease on the reconcile walk `name` for `worker` until `until`, and answers the
    /// state then; nil when another worker holds an unexpired lease.
    func claimReconcile(_ name: String, by worker: String, until: Date, at now: Date) async throws(LedgerError) -> ReconcileState?
    /// Extends `worker`'s lease to `until`; false when it no longer holds it (it ran out and
    /// another worker may have taken it).
    func renewReconcile(_ name: String, by worker: String, until: Date, at now: Date) async throws(LedgerError) -> Bool
    /// Records a cycle's outcome and gives the lease up (only `worker`'s own lease).
    func finishReconcile(_ name: String, by worker: String, outcome: ReconcileOutcome, at now: Date) async throws(LedgerError)
    /// The walk's state; nil before its first cycle.
    func reconcileState(_ name: String) async throws(LedgerError) -> ReconcileState?
    /// Whether the notification log holds this `notificationUUID`.
    func isNotificationLogged(_ uuid: String) async throws(LedgerError) -> Bool
    /// The appAccountToken bound to `user`, if any.
    func appAccountToken(of user: String) async throws(LedgerError) -> String?
    /// Reads and rewrites one request budget in one transaction, the row locked: `update` gets
    /// the last departures and the Retry-After instant, and answers the new ones and its result.
    func updateAPIBudget(_ key: String, _ update: @escaping @Sendable (APIBudget) -> (APIBudget, Date?)) async throws(LedgerError) -> Date?
}

/// One request budget as the ledger keeps it.
public struct APIBudget: Sendable, Equatable {
    public var departures: [Date]
    public var blockedUntil: Date?

    public init(departures: [Date], blockedUntil: Date?) {
        self.departures = departures
        self.blockedUntil = blockedUntil
    }
}
