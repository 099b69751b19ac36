import Foundation
import ReceiptParser

/// The credit ledger's rules, over any `LedgerStore`: every verified transaction is recorded as seen;
/// a transaction is credited exactly once, ever, to the first user who claims it (the store's unique
/// key decides races); a StoreKit 2 transaction with an appAccountToken goes only to the user bound to
/// that token. Feed it only transactions from input the server has verified.
public struct Ledger: Sendable {
    public let store: any LedgerStore
    /// The ledger's clock: "now" for its records, and for a status asked without an instant.
    public let now: @Sendable () -> Date

    /// `now` is the clock for "first seen", "credited at" and `uncredited(olderThan:)`; tests pass their own.
    public init(store: any LedgerStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// Records every transaction of a verified input as seen, and its renewal info. Idempotent: the
    /// first sighting is kept, and each snapshot only while none signed later arrives
    /// (`LedgerStore.recordSeen(_:renewalInfos:at:)`).
    public func record(seen transactions: [LedgerTransaction], renewalInfos: [SignedRenewalInfo] = []) async throws(LedgerError) {
        try await store.recordSeen(transactions, renewalInfos: renewalInfos, at: now())
    }

    /// Every subscription and non-consumable `user` owns (`LedgerStore.subscriptions(ownedBy:)`),
    /// expired ones included, at `instant`, sorted by product id then original transaction id.
    public func entitlements(of user: String, at instant: Date) async throws(LedgerError) -> [SubscriptionState] {
        try await store.subscriptions(ownedBy: user).subscriptions(at: instant)
    }

    /// Who owns the subscription `originalTransactionId` (`LedgerStore.owner(ofSubscription:)`).
    public func owner(ofSubscription originalTransactionId: String) async throws(LedgerError) -> String? {
        try await store.owner(ofSubscription: originalTransactionId)
    }

    /// The subscription (or non-consumable) `originalTransactionId` at `instant`, by the library's
    /// `SubscriptionRules` over the snapshots held; nil when the ledger holds none of it, or it is
    /// neither (a consumable, a non-renewing subscription, a receipt purchase without an expiry).
    public func subscription(originalTransactionId: String, at instant: Date) async throws(LedgerError) -> SubscriptionState? {
        try await store.snapshots(ofSubscription: originalTransactionId)?.subscriptions(at: instant)
            .first { $0.originalTransactionId == originalTransactionId }
    }

    /// Credits `user` with the requested transaction, or, when none is requested, with every transaction
    /// of the input not yet credited. All of the input is recorded as seen first, whatever the outcome.
    /// A transaction refunded or revoked before anyone was credited (its revocation in this input,
    /// or learnt earlier) is never credited: it is listed as `revoked`.
    ///
    /// Throws `transactionNotInInput` when the requested id is not in the input,
    /// `creditedToAnotherUser` when the requested transaction is held by someone else, or belongs
    /// to a subscription someone else owns (a renewal of another user's purchase),
    /// `transactionRevoked` when it was revoked before anyone was credited, and
    /// `appAccountTokenMismatch` (before anything is credited) when a transaction to credit carries
    /// an appAccountToken that is not bound to `user`.
    public func credit(
        user: String, transactions: [LedgerTransaction], requested: String? = nil
    ) async throws(LedgerError) -> CreditOutcome {
        let targets: [LedgerTransaction]
        do {
            targets = try Self.targets(of: transactions, requested: requested)
        } catch {
            try await record(seen: transactions)
            throw error
        }
        // One database transaction records the input and claims the targets; the store checks the
        // appAccountToken bindings (as recorded from every input) and refuses revoked transactions there.
        let claims: [CreditClaim]
        switch try await store.recordAndClaim(transactions, claiming: targets.map(\.transactionId), for: user, at: now()) {
        case .appAccountTokenMismatch(let id):
            throw .appAccountTokenMismatch(transactionId: id)
        case .claimed(let answer):
            claims = answer
        }
        var outcome = CreditOutcome()
        for claim in claims {
            if claim.isNew {
                outcome.credited.append(claim.transactionId)
            } else if let holder = claim.holder {
                if Self.isSameUser(holder, user) {
                    outcome.alreadyCredited.append(claim.transactionId)
                } else {
                    outcome.conflicts.append(claim.transactionId)
                }
            } else if claim.isRevoked {
                outcome.revoked.append(claim.transactionId)
            } else if let owner = claim.subscriptionOwner, !Self.isSameUser(owner, user) {
                // A renewal or another purchase of a subscription someone else owns.
                outcome.conflicts.append(claim.transactionId)
            } else {
                // Not revoked, held by nobody, yet not credited: a racing request recorded an
                // appAccountToken of someone else's after the store's check.
                throw .appAccountTokenMismatch(transactionId: claim.transactionId)
            }
        }
        if let requested, outcome.conflicts.contains(requested) {
            throw .creditedToAnotherUser(transactionId: requested)
        }
        if let requested, outcome.revoked.contains(requested) {
            throw .transactionRevoked(transactionId: requested)
        }
        return outcome
    }

    /// Binds `user` to the appAccountToken their app sets on StoreKit 2 purchases. Permanent: binding
    /// the same pair again is fine, another user or another token is `bindingConflict`.
    public func bind(user: String, appAccountToken: UUID) async throws(LedgerError) {
        try await store.bind(user: user, appAccountToken: appAccountToken.uuidString.lowercased(), at: now())
    }

    /// How many rows a query answers at most unless asked otherwise: a listing stays bounded however
    /// large the ledger grows.
    public static let defaultLimit = 1_000

    /// Missed orders: transactions seen, never credited, first seen more than `age` seconds ago,
    /// oldest first, at most `limit`.
    public func uncredited(olderThan age: TimeInterval, limit: Int = defaultLimit) async throws(LedgerError) -> [SeenTransaction] {
        try await store.uncredited(firstSeenBefore: now().addingTimeInterval(-age), limit: max(0, limit))
    }

    /// The credits of `user`, oldest first, at most `limit`.
    public func credits(of user: String, limit: Int = defaultLimit) async throws(LedgerError) -> [Credit] {
        try await store.credits(of: user, limit: max(0, limit))
    }

    /// Marks a transaction refunded or revoked by hand (signed input does it through its snapshots).
    /// The first revocation is kept, until a signed snapshot of the transaction arrives later and
    /// says otherwise; false when the transaction was never seen.
    @discardableResult
    public func markRevoked(transactionId: String, at date: Date, reason: String) async throws(LedgerError) -> Bool {
        try await store.markRevoked(transactionId: transactionId, at: date, reason: reason)
    }

    /// Clears a transaction's revocation by hand (signed input does it through its snapshots: a
    /// REFUND_REVERSED). A credit is off the claw-back list again; a transaction never credited can
    /// be credited. A signed snapshot of the transaction arriving later says otherwise. False when
    /// the transaction was never seen.
    @discardableResult
    public func clearRevocation(transactionId: String) async throws(LedgerError) -> Bool {
        try await store.clearRevocation(transactionId: transactionId)
    }

    /// Records what a verified App Store Server Notification means (`LedgerNotificationEffect`), in
    /// one write: its transaction seen, with its snapshot and the notification's renewal info; and,
    /// if that snapshot is the latest held, revoked (REFUND, REVOKE) or its revocation cleared
    /// (REFUND_REVERSED): a retry of an older notification changes nothing. The notification is
    /// logged by its `notificationUUID` in the same write (`notifications(originalTransactionId:limit:)`).
    /// Answers the effect; nil when it has no transaction with an id (its renewal info and log
    /// entry are still recorded). Feed it only notifications the server has verified.
    @discardableResult
    public func apply(
        notification: ServerNotification, transaction: SignedTransaction?, renewalInfo: SignedRenewalInfo? = nil
    ) async throws(LedgerError) -> LedgerNotificationEffect? {
        let receivedAt = now()
        let effect = transaction.flatMap { LedgerNotificationEffect(notification: notification, transaction: $0, receivedAt: receivedAt) }
        var seen = effect.map { [$0.transaction] } ?? []
        if case .revoke(let date, let reason)? = effect?.action {
            seen[0].revocationDate = date
            seen[0].revocationReason = reason
        }
        if let logged = LedgerNotification(notification, transaction: transaction, renewalInfo: renewalInfo) {
            try await store.recordNotification(logged, seen: seen, renewalInfo: renewalInfo, at: receivedAt)
        } else if !seen.isEmpty || renewalInfo != nil {
            try await store.recordSeen(seen, renewalInfos: renewalInfo.map { [$0] } ?? [], at: receivedAt)
        }
        return effect
    }

    /// Takes the lease on healing from Apple's notification history for `worker`, for `lease`
    /// seconds; nil while another server runs a cycle.
    public func claimReconcile(by worker: String, lease: TimeInterval) async throws(LedgerError) -> ReconcileState? {
        let instant = now()
        return try await store.claimReconcile(Self.reconcileName, by: worker, until: instant.addingTimeInterval(lease), at: instant)
    }

    /// Extends `worker`'s lease by `lease` seconds from now; false when it was lost.
    public func renewReconcile(by worker: String, lease: TimeInterval) async throws(LedgerError) -> Bool {
        let instant = now()
        return try await store.renewReconcile(Self.reconcileName, by: worker, until: instant.addingTimeInterval(lease), at: instant)
    }

    /// Records a cycle's outcome and gives its lease up.
    public func finishReconcile(by worker: String, outcome: ReconcileOutcome) async throws(LedgerError) {
        try await store.finishReconcile(Self.reconcileName, by: worker, outcome: outcome, at: now())
    }

    /// Where healing stands; nil before the first cycle.
    public func reconcileState() async throws(LedgerError) -> ReconcileState? {
        try await store.reconcileState(Self.reconcileName)
    }

    /// Whether a notification is in the log already (by its `notificationUUID`).
    public func isNotificationLogged(_ uuid: String) async throws(LedgerError) -> Bool {
        try await store.isNotificationLogged(uuid)
    }

    static let reconcileName = "notification-history"

    /// Reads and rewrites the request budget `key` in one transaction (`LedgerStore.updateAPIBudget`):
    /// every server on the ledger reserves its requests to Apple there.
    public func updateAPIBudget(_ key: String, _ update: @escaping @Sendable (APIBudget) -> (APIBudget, Date?)) async throws(LedgerError) -> Date? {
        try await store.updateAPIBudget(key, update)
    }

    /// The appAccountToken bound to `user` (`bind(user:appAccountToken:)`), if any.
    public func appAccountToken(of user: String) async throws(LedgerError) -> String? {
        try await store.appAccountToken(of: user)
    }

    /// Leases due webhook events for `worker` until `lease` seconds from now
    /// (`LedgerStore.claimWebhookEvents(for:until:at:limit:)`).
    public func claimWebhookEvents(for worker: String, lease: TimeInterval, limit: Int) async throws(LedgerError) -> [WebhookEvent] {
        let instant = now()
        return try await store.claimWebhookEvents(for: worker, until: instant.addingTimeInterval(lease), at: instant, limit: limit)
    }

    /// Records an attempt at a leased event: delivered, to try again at `retryAt`, or (no
    /// `retryAt`) failed for good.
    public func finishWebhookAttempt(_ id: String, by worker: String, delivered: Bool, error: String? = nil,
                                     retryAt: Date?) async throws(LedgerError) {
        try await finishWebhookAttempts([WebhookAttempt(id: id, delivered: delivered, error: error, retryAt: retryAt)], by: worker)
    }

    /// Records several attempts in one write (`LedgerStore.finishWebhookAttempts(_:by:at:)`).
    public func finishWebhookAttempts(_ attempts: [WebhookAttempt], by worker: String) async throws(LedgerError) {
        try await store.finishWebhookAttempts(attempts, by: worker, at: now())
    }

    /// One step of the sweep for events stranded behind nothing
    /// (`LedgerStore.releaseStrandedWebhookEvents(after:limit:at:)`).
    public func releaseStrandedWebhookEvents(after cursor: String?, limit: Int) async throws(LedgerError)
        -> (cursor: String?, released: Int) {
        try await store.releaseStrandedWebhookEvents(after: cursor, limit: limit, at: now())
    }

    /// The events whose last try failed, oldest first, at most `limit`.
    public func failedWebhookEvents(limit: Int = defaultLimit) async throws(LedgerError) -> [WebhookEvent] {
        try await store.failedWebhookEvents(limit: max(0, limit))
    }

    /// Sends a failed event again, from now; false when no event `id` failed.
    public func retryWebhookEvent(_ id: String) async throws(LedgerError) -> Bool {
        try await store.retryWebhookEvent(id, at: now())
    }

    /// The notifications logged, about the subscription `originalTransactionId` when given, most
    /// recently received first, at most `limit`.
    public func notifications(originalTransactionId: String? = nil, limit: Int = defaultLimit) async throws(LedgerError) -> [LoggedNotification] {
        try await store.notifications(originalTransactionId: originalTransactionId, limit: max(0, limit))
    }

    /// Credits whose transaction was later revoked, for the team to claw back; most recent first,
    /// at most `limit`.
    public func revokedCredits(limit: Int = defaultLimit) async throws(LedgerError) -> [Credit] {
        try await store.revokedCredits(limit: max(0, limit))
    }

    // MARK: - Rules

    /// The transactions to credit: the requested one, else all of the input (each id once, in order).
    /// Ids compare byte for byte, as the database's key does.
    private static func targets(
        of transactions: [LedgerTransaction], requested: String?
    ) throws(LedgerError) -> [LedgerTransaction] {
        if let requested {
            guard let transaction = transactions.first(where: { $0.transactionId.utf8.elementsEqual(requested.utf8) }) else {
                throw .transactionNotInInput(transactionId: requested)
            }
            return [transaction]
        }
        var seenIds = Set<[UInt8]>()
        return transactions.filter { seenIds.insert(Array($0.transactionId.utf8)).inserted }
    }

    /// User ids compare byte for byte, as the databases compare them: Swift's `==` would take two
    /// canonically equivalent spellings (é as one scalar or two), different users there, for one.
    static func isSameUser(_ stored: String?, _ user: String) -> Bool {
        stored.map { $0.utf8.elementsEqual(user.utf8) } ?? false
    }
}
