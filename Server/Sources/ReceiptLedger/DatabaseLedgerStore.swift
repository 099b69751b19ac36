import Foundation
import ReceiptParser

/// Every ledger operation, written once over a `LedgerDriver`: `SQLiteLedgerStore` and
/// `PostgresLedgerStore` differ only in their driver, so the two databases cannot drift apart. Each
/// call is one transaction; rows are written in key order, so that requests writing overlapping
/// transactions wait for each other instead of deadlocking; every failure is a `LedgerError`.
public class DatabaseLedgerStore: LedgerStore, @unchecked Sendable {
    // @unchecked: a non-final class cannot be checked; its state is this immutable Sendable driver
    // and flag, and the subclasses add only immutable Sendable properties.
    package let driver: any LedgerDriver
    /// Whether each write also writes the webhook events its changes make (`LedgerEvent`), in its
    /// own transaction: on when the server sends webhooks.
    public let writesWebhookEvents: Bool

    package init(driver: any LedgerDriver, writesWebhookEvents: Bool = false) {
        self.driver = driver
        self.writesWebhookEvents = writesWebhookEvents
    }

    /// The migration identifiers applied to this database, in the order applied.
    public func appliedMigrations() async throws(LedgerError) -> [String] {
        try await read { connection in
            try connection.rows(LedgerSQL.appliedMigrationsInOrder).map { try $0.requiredText(0) }
        }
    }

    public func recordSeen(_ transactions: [LedgerTransaction], renewalInfos: [SignedRenewalInfo], at now: Date) async throws(LedgerError) {
        let scope = EventScope(transactions: transactions, renewalInfos: renewalInfos, cause: nil)
        try await write(reporting: scope, at: now) { connection in
            try Self.record(transactions, renewalInfos: renewalInfos, at: now, on: connection)
        }
    }

    public func recordNotification(_ notification: LedgerNotification, seen: [LedgerTransaction], renewalInfo: SignedRenewalInfo?,
                                   at now: Date) async throws(LedgerError) {
        let renewalInfos = renewalInfo.map { [$0] } ?? []
        let scope = EventScope(transactions: seen, renewalInfos: renewalInfos, cause: .notification(notification))
        try await write(reporting: scope, at: now) { connection in
            try Self.record(seen, renewalInfos: renewalInfos, at: now, on: connection)
            try connection.send(LedgerSQL.logNotification(notification, transaction: seen.first?.snapshot, renewalInfo: renewalInfo, at: now))
        }
    }

    public func notifications(originalTransactionId: String?, limit: Int) async throws(LedgerError) -> [LoggedNotification] {
        try await read { connection in
            let rows = if let originalTransactionId {
                try connection.rows(LedgerSQL.notificationsOfSubscription, .text(originalTransactionId), .integer(Int64(limit)))
            } else {
                try connection.rows(LedgerSQL.notifications, .integer(Int64(limit)))
            }
            return try rows.map(LedgerRows.notification)
        }
    }

    public func snapshots(ofSubscription originalTransactionId: String) async throws(LedgerError) -> SubscriptionSnapshots? {
        try await read { connection in try LedgerRows.snapshots(ofSubscription: originalTransactionId, on: connection) }
    }

    public func subscriptions(ownedBy user: String) async throws(LedgerError) -> SubscriptionSnapshots {
        try await read { connection in try LedgerRows.snapshots(ownedBy: user, on: connection) }
    }

    public func owner(ofSubscription originalTransactionId: String) async throws(LedgerError) -> String? {
        try await read { connection in try LedgerRows.owner(ofSubscription: originalTransactionId, on: connection) }
    }

    public func recordAndClaim(
        _ seen: [LedgerTransaction], claiming transactionIds: [String], for user: String, at now: Date
    ) async throws(LedgerError) -> ClaimAnswer {
        let creditedAt = LedgerDate.milliseconds(now)
        let scope = EventScope(transactions: seen, renewalInfos: [], cause: .credit(user: user, transactionIds: transactionIds))
        return try await write(reporting: scope, at: now) { connection in
            try Self.record(seen, renewalInfos: [], at: now, on: connection)
            // Every binding first, so that a mismatch credits nothing of the request (a token recorded
            // by a racing request after this read is still refused by the inserts' own condition).
            // A subscription's tokens all count: its renewals belong to whoever its purchase does.
            var subscriptionKeys: [String: String] = [:]
            for id in transactionIds {
                for row in try connection.rows(LedgerSQL.subscriptionTokens, .text(id)) {
                    subscriptionKeys[id] = try row.text(0)
                    if try row.text(1) != nil, !Ledger.isSameUser(try row.text(2), user) {
                        return .appAccountTokenMismatch(transactionId: id)
                    }
                }
            }
            // Owners, then credits, each in key order. Under READ COMMITTED an insert that conflicts
            // with another's uncommitted one waits for its commit, and the next statement reads a
            // fresh snapshot; SQLite has one writer.
            for id in Self.inKeyOrder(transactionIds, key: { subscriptionKeys[$0] ?? $0 }) {
                try connection.send(LedgerStatement(sql: LedgerSQL.claimSubscription,
                                                    values: [.text(user), .integer(creditedAt), .text(id), .text(user)]))
            }
            var isNew = [Bool](repeating: false, count: transactionIds.count)
            for index in Self.inKeyOrder(Array(transactionIds.indices), key: { transactionIds[$0] }) {
                let id = transactionIds[index]
                isNew[index] = try connection.run(LedgerSQL.insertCredit, .text(user), .integer(creditedAt), .text(id), .text(user),
                                                  .text(user)) == 1
            }
            return .claimed(try transactionIds.indices.map { index in
                let id = transactionIds[index]
                // Whoever holds it now: this user if the insert happened, else the first credit's,
                // else nobody (revoked before any credit, or its subscription is someone else's).
                let state = try connection.rows(LedgerSQL.claimState, .text(id)).first
                return CreditClaim(transactionId: id, holder: try state?.text(0), isNew: isNew[index],
                                   isRevoked: try state?.integer(1) != nil, subscriptionOwner: try state?.text(2))
            })
        }
    }

    public func bind(user: String, appAccountToken: String, at now: Date) async throws(LedgerError) {
        let scope = EventScope(transactionIds: [], subscriptionKeys: [], appAccountToken: appAccountToken, cause: nil)
        let bound = try await write(reporting: scope, at: now) { connection in
            try connection.run(LedgerSQL.insertUser, .text(user), .text(appAccountToken))
            let tokenOfUser = try connection.rows(LedgerSQL.tokenOfUser, .text(user)).first?.text(0)
            let userOfToken = try connection.rows(LedgerSQL.userOfToken, .text(appAccountToken)).first?.text(0)
            return tokenOfUser == appAccountToken && Ledger.isSameUser(userOfToken, user)
        }
        if !bound { throw .bindingConflict(user: user) }
    }

    public func uncredited(firstSeenBefore date: Date, limit: Int) async throws(LedgerError) -> [SeenTransaction] {
        try await read { connection in
            try connection.rows(LedgerSQL.uncredited, .integer(LedgerDate.milliseconds(date)), .integer(Int64(limit)))
                .map(LedgerRows.seenTransaction)
        }
    }

    public func credits(of user: String, limit: Int) async throws(LedgerError) -> [Credit] {
        try await read { connection in
            try connection.rows(LedgerSQL.creditsOfUser, .text(user), .integer(Int64(limit))).map(LedgerRows.credit)
        }
    }

    public func markRevoked(transactionId: String, at date: Date, reason: String) async throws(LedgerError) -> Bool {
        try await write { connection in
            try connection.run(LedgerSQL.markRevoked, .integer(LedgerDate.milliseconds(date)), .text(reason), .text(transactionId))
            return try !connection.rows(LedgerSQL.isSeen, .text(transactionId)).isEmpty
        }
    }

    public func clearRevocation(transactionId: String) async throws(LedgerError) -> Bool {
        try await write { connection in
            try connection.run(LedgerSQL.clearRevocation, .text(transactionId))
            return try !connection.rows(LedgerSQL.isSeen, .text(transactionId)).isEmpty
        }
    }

    public func revokedCredits(limit: Int) async throws(LedgerError) -> [Credit] {
        try await read { connection in
            try connection.rows(LedgerSQL.revokedCredits, .integer(Int64(limit))).map(LedgerRows.credit)
        }
    }

    // MARK: - Webhook outbox

    public func claimWebhookEvents(for worker: String, until: Date, at now: Date, limit: Int) async throws(LedgerError) -> [WebhookEvent] {
        let (nowMs, untilMs) = (LedgerDate.milliseconds(now), LedgerDate.milliseconds(until))
        let claim = LedgerSQL.claimWebhookEvents(lockClause: driver.lockingSkippingLockedRows)
        return try await write { connection in
            try connection.run(claim, .integer(nowMs), .integer(nowMs), .integer(Int64(limit)), .text(worker), .integer(untilMs),
                               .integer(nowMs))
            return try connection.rows(LedgerSQL.claimedWebhookEvents, .text(worker)).map { row in
                WebhookEvent(id: try row.requiredText(0), user: try row.requiredText(1), type: try row.requiredText(2),
                             body: try row.requiredBytes(3), attempts: Int(try row.requiredInteger(4)))
            }
        }
    }

    /// A delivered or failed event ends its place in its user's queue: the next one is made due.
    public func finishWebhookAttempts(_ attempts: [WebhookAttempt], by worker: String, at now: Date) async throws(LedgerError) {
        let nowMs = LedgerDate.milliseconds(now)
        let driver = driver
        try await write { connection in
            var movedOn: [String] = []
            for attempt in Self.inKeyOrder(attempts, key: \.id) {
                let retryAt = attempt.delivered ? nil : attempt.retryAt
                let users = try connection.rows(attempt.delivered
                    ? LedgerStatement(sql: LedgerSQL.webhookDelivered, values: [.integer(nowMs), .text(attempt.id), .text(worker)])
                    : LedgerStatement(sql: LedgerSQL.webhookAttemptFailed, values: [
                        .text(retryAt == nil ? "failed" : "pending"), .text(attempt.error),
                        .integer(retryAt.map(LedgerDate.milliseconds) ?? nowMs), .integer(retryAt == nil ? nowMs : nil),
                        .text(attempt.id), .text(worker),
                    ]))
                if retryAt == nil { movedOn += try users.map { try $0.requiredText(0) } }
            }
            let users = Set(movedOn)
            try Self.lockWebhookQueues(of: users, driver: driver, on: connection)
            for user in users.sorted() {
                try connection.send(LedgerStatement(sql: LedgerSQL.promoteWebhookQueue, values: [
                    .integer(nowMs), .text(user), .integer(LedgerSQL.waitingBehindEarlierEvent),
                ]))
            }
        }
    }

    public func releaseStrandedWebhookEvents(after cursor: String?, limit: Int, at now: Date) async throws(LedgerError)
        -> (cursor: String?, released: Int) {
        try await write { connection in
            let waiting = LedgerValue.integer(LedgerSQL.waitingBehindEarlierEvent)
            guard let end = try connection.rows(LedgerSQL.waitingWebhookEventsChunkEnd, waiting, .text(cursor ?? ""),
                                                .integer(Int64(max(1, limit)))).first?.text(0) else { return (nil, 0) }
            let released = try connection.run(LedgerSQL.releaseStrandedWebhookEvents, .integer(LedgerDate.milliseconds(now)), waiting,
                                              .text(cursor ?? ""), .text(end))
            return (end, released)
        }
    }

    public func failedWebhookEvents(limit: Int) async throws(LedgerError) -> [WebhookEvent] {
        try await read { connection in
            try connection.rows(LedgerSQL.failedWebhookEvents, .integer(Int64(limit))).map { row in
                WebhookEvent(id: try row.requiredText(0), user: try row.requiredText(1), type: try row.requiredText(2),
                             body: try row.requiredBytes(3), attempts: Int(try row.requiredInteger(4)), lastError: try row.text(5),
                             failedAt: try row.integer(6).map(LedgerDate.date))
            }
        }
    }

    public func retryWebhookEvent(_ id: String, at now: Date) async throws(LedgerError) -> Bool {
        try await write { connection in
            try connection.run(LedgerSQL.retryWebhookEvent, .integer(LedgerDate.milliseconds(now)), .text(id)) == 1
        }
    }

    public func claimReconcile(_ name: String, by worker: String, until: Date, at now: Date) async throws(LedgerError) -> ReconcileState? {
        try await write { connection in
            try connection.run(LedgerSQL.insertReconcile, .text(name))
            let nowMs = LedgerDate.milliseconds(now)
            let claimed = try connection.run(LedgerSQL.claimReconcile, .text(worker), .integer(LedgerDate.milliseconds(until)), .integer(nowMs),
                                             .text(name), .integer(nowMs))
            guard claimed == 1 else { return nil }
            return try connection.rows(LedgerSQL.reconcileState, .text(name)).first.map(Self.reconcileState)
        }
    }

    public func finishReconcile(_ name: String, by worker: String, outcome: ReconcileOutcome, at now: Date) async throws(LedgerError) {
        try await write { connection in
            _ = try connection.run(LedgerSQL.finishReconcile, .integer(outcome.checkpoint.map { LedgerDate.milliseconds($0) }),
                                   .integer(LedgerDate.milliseconds(now)), .integer(Int64(outcome.fetched)), .integer(Int64(outcome.applied)),
                                   .integer(Int64(outcome.repeats)), .integer(Int64(outcome.refused)), .text(outcome.error), .text(name), .text(worker))
        }
    }

    public func renewReconcile(_ name: String, by worker: String, until: Date, at now: Date) async throws(LedgerError) -> Bool {
        try await write { connection in
            try connection.run(LedgerSQL.renewReconcile, .integer(LedgerDate.milliseconds(until)), .text(name), .text(worker),
                               .integer(LedgerDate.milliseconds(now))) == 1
        }
    }

    public func reconcileState(_ name: String) async throws(LedgerError) -> ReconcileState? {
        try await read { connection in try connection.rows(LedgerSQL.reconcileState, .text(name)).first.map(Self.reconcileState) }
    }

    public func isNotificationLogged(_ uuid: String) async throws(LedgerError) -> Bool {
        try await read { connection in try !connection.rows(LedgerSQL.notificationLogged, .text(uuid)).isEmpty }
    }

    public func updateAPIBudget(_ key: String, _ update: @escaping @Sendable (APIBudget) -> (APIBudget, Date?)) async throws(LedgerError) -> Date? {
        try await write { connection in
            try connection.run(LedgerSQL.insertAPIBudget, .text(key))
            _ = try connection.run(LedgerSQL.lockAPIBudget, .text(key))
            let row = try connection.rows(LedgerSQL.apiBudget, .text(key)).first
            let departures = (try row?.text(0) ?? "").split(separator: ",").compactMap { Int64($0) }.map { LedgerDate.date($0) }
            let current = APIBudget(departures: departures, blockedUntil: try row?.integer(1).map { LedgerDate.date($0) })
            let (next, answer) = update(current)
            if next != current {
                _ = try connection.run(LedgerSQL.updateAPIBudget, .text(next.departures.map { String(LedgerDate.milliseconds($0)) }.joined(separator: ",")),
                                       .integer(next.blockedUntil.map { LedgerDate.milliseconds($0) }), .text(key))
            }
            return answer
        }
    }

    public func appAccountToken(of user: String) async throws(LedgerError) -> String? {
        try await read { connection in try connection.rows(LedgerSQL.appAccountTokenOfUser, .text(user)).first?.text(0) }
    }

    private static func reconcileState(_ row: LedgerRow) throws -> ReconcileState {
        func date(_ column: Int) throws -> Date? { try row.integer(column).map { LedgerDate.date($0) } }
        return ReconcileState(checkpoint: try date(0), leaseHolder: try row.text(1), leaseUntil: try date(2), lastStarted: try date(3),
                              lastFinished: try date(4), lastFetched: Int(try row.integer(5) ?? 0), lastApplied: Int(try row.integer(6) ?? 0),
                              lastRepeats: Int(try row.integer(7) ?? 0), lastRefused: Int(try row.integer(9) ?? 0), lastError: try row.text(8))
    }

    /// What a write may change that webhooks report: its transactions, the subscriptions of
    /// renewal info it records, those carrying an appAccountToken it binds, and what caused it.
    private struct EventScope: Sendable {
        var transactionIds: [String]
        var subscriptionKeys: [String]
        var appAccountToken: String? = nil
        var cause: LedgerEvent.Cause?

        init(transactionIds: [String], subscriptionKeys: [String], appAccountToken: String? = nil, cause: LedgerEvent.Cause?) {
            self.transactionIds = transactionIds
            self.subscriptionKeys = subscriptionKeys
            self.appAccountToken = appAccountToken
            self.cause = cause
        }

        init(transactions: [LedgerTransaction], renewalInfos: [SignedRenewalInfo], cause: LedgerEvent.Cause?) {
            self.init(transactionIds: transactions.map(\.transactionId),
                      subscriptionKeys: transactions.map(\.subscriptionKey) + renewalInfos.compactMap(\.originalTransactionId), cause: cause)
        }

        func read(at instant: Date, on connection: any LedgerConnection) throws -> LedgerEventCapture {
            var keys = subscriptionKeys
            if let appAccountToken {
                keys += try connection.rows(LedgerSQL.subscriptionsWithToken, .text(appAccountToken)).map { try $0.requiredText(0) }
            }
            return try LedgerEventCapture.read(transactionIds: transactionIds, subscriptionKeys: keys, at: instant, on: connection)
        }
    }

    /// `work` in one write; when this store writes webhook events, the events its changes make
    /// are written in the same transaction, so that they commit, or not, with it.
    private func write<T: Sendable>(reporting scope: EventScope, at now: Date,
                                    _ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws(LedgerError) -> T {
        guard writesWebhookEvents else { return try await write(work) }
        let driver = driver
        return try await write { connection in
            let before = try scope.read(at: now, on: connection)
            let result = try work(connection)
            let after = try scope.read(at: now, on: connection)
            let events = LedgerEventCapture.events(from: before, to: after, cause: scope.cause)
            let write = events.isEmpty ? 0 : WebhookEvent.writes.next()
            try Self.lockWebhookQueues(of: Set(events.map(\.user)), driver: driver, on: connection)
            let nowMs = LedgerDate.milliseconds(now)
            for (position, event) in events.enumerated() {
                let id = WebhookEvent.newID(at: now, write: write, position: position)
                try connection.send(LedgerStatement(sql: LedgerSQL.insertWebhookEvent, values: [
                    .text(id), .text(event.user), .text(event.kind.rawValue), .bytes(event.body(at: now)), .integer(nowMs),
                    .text(event.user), .text(id), .integer(LedgerSQL.waitingBehindEarlierEvent), .integer(nowMs),
                ]))
            }
            return result
        }
    }

    // MARK: - Plumbing

    /// Takes the webhook queue locks of `users` (`LedgerLockKey`) in key order, before anything
    /// that reads their queues.
    private static func lockWebhookQueues(of users: Set<String>, driver: any LedgerDriver, on connection: any LedgerConnection) throws {
        for key in Set(users.map(LedgerLockKey.webhookQueue)).sorted() {
            if let lock = driver.transactionLock(key) { try connection.send(lock) }
        }
    }

    /// Sightings in key order, as every write here takes its rows. Their answers are not needed,
    /// so a database that can does not wait for them (PostgreSQL: one round trip less each).
    private static func record(_ transactions: [LedgerTransaction], renewalInfos: [SignedRenewalInfo], at now: Date,
                               on connection: any LedgerConnection) throws {
        for transaction in inKeyOrder(transactions, key: \.transactionId) {
            for statement in LedgerSQL.recordSeen(transaction, firstSeenAt: now) {
                try connection.send(statement)
            }
        }
        for statement in inKeyOrder(renewalInfos, key: { $0.originalTransactionId ?? "" }).compactMap(LedgerSQL.recordRenewal) {
            try connection.send(statement)
        }
    }

    /// Rows are written in one order, by key, whatever the input's: two requests writing overlapping
    /// transactions then wait for each other instead of deadlocking (which PostgreSQL would break by
    /// failing one). Keys compare byte for byte, as the database's key does, so that two spellings
    /// Swift calls equal keep one order too; equal keys keep their input order, so the first sighting wins.
    static func inKeyOrder<Element>(_ elements: [Element], key: (Element) -> String) -> [Element] {
        elements.enumerated()
            .sorted { first, second in
                let (a, b) = (key(first.element).utf8, key(second.element).utf8)
                if a.elementsEqual(b) { return first.offset < second.offset }
                return a.lexicographicallyPrecedes(b)
            }
            .map(\.element)
    }

    private func write<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws(LedgerError) -> T {
        do {
            return try await driver.write(work)
        } catch {
            throw driver.ledgerError(error)
        }
    }

    private func read<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws(LedgerError) -> T {
        do {
            return try await driver.read(work)
        } catch {
            throw driver.ledgerError(error)
        }
    }
}
