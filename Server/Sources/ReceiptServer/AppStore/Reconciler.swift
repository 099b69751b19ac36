import AppStoreServerAPI
import Foundation
import Logging
import NIOConcurrencyHelpers
import ReceiptLedger
import ReceiptParser
import ServiceLifecycle

/// Heals what Apple's notifications missed: walks Get Notification History from the checkpoint
/// kept in the ledger and applies each notification the log lacks through the same path as
/// `POST /v2/notifications`; fetches a customer's history on demand. Several servers on one
/// ledger run one cycle at a time (a lease in the ledger).
///
/// A service of the application: it runs the cycles every `interval` seconds, and sets app
/// account tokens at Apple after credits (`--set-app-account-tokens`).
public final class Reconciler: Service, Sendable {
    /// What a cycle did, as `POST /v1/reconcile` answers it.
    public struct Cycle: Sendable, Equatable {
        public var fetched: Int
        public var applied: Int
        public var repeats: Int
        /// Notifications the server refused (not verified, another app, text the ledger cannot
        /// store): logged, never applied.
        public var refused: Int
        public var checkpoint: Date
    }

    /// Why a cycle or a fetch did not happen.
    enum Failure: Error {
        /// Another cycle runs now, on this server or another.
        case running(holder: String?)
        /// The cycle's lease ran out before it was done (another server may have taken over).
        case leaseLost
        case apple(AppStoreAPIError)
        case ledger(LedgerError)
    }

    let client: AppStoreServerAPIClient
    let ledger: Ledger
    let service: ReceiptService
    let interval: Double?
    let since: Date?
    let logger: Logger
    /// This server, in the lease.
    let worker = "reconciler-\(UUID().uuidString.lowercased())"
    /// How long a cycle may hold the lease before another server may take over.
    static let lease: TimeInterval = 600
    /// How far before the checkpoint each window starts: Apple may list a notification in its
    /// history a little after signing it. What was applied already counts as a repeat.
    static let overlap: TimeInterval = 600
    /// The oldest notification Apple keeps in its history (180 days), less a day of margin.
    static let historyDepth: TimeInterval = 179 * 86_400
    private let nextCycle = NIOLockedValueBox<Date?>(nil)

    let setsAppAccountTokens: Bool

    init(client: AppStoreServerAPIClient, ledger: Ledger, service: ReceiptService, interval: Double?, since: Date?,
         setsAppAccountTokens: Bool = false, logger: Logger) {
        self.client = client
        self.setsAppAccountTokens = setsAppAccountTokens
        self.ledger = ledger
        self.service = service
        self.interval = interval
        self.since = since
        self.logger = logger
    }

    /// When the next scheduled cycle starts; nil without `--reconcile-interval`.
    var next: Date? { nextCycle.withLockedValue { $0 } }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await request in self.tokenRequests.stream { await self.setAppAccountTokens(request) }
                }
                if let interval = self.interval {
                    group.addTask { await self.cycles(every: interval) }
                }
            }
        }
        try? await client.shutdown()
    }

    /// A cycle every `interval` seconds, the first at once.
    private func cycles(every interval: Double) async {
        while !Task.isCancelled {
            do {
                let cycle = try await self.cycle()
                logger.info("reconciled with Apple's notification history",
                            metadata: ["fetched": "\(cycle.fetched)", "applied": "\(cycle.applied)", "repeats": "\(cycle.repeats)"])
            } catch {
                // A cycle running on another server is no failure: this one waits for its next turn.
                if case .running = error {} else {
                    logger.warning("reconcile cycle failed", metadata: ["error": "\(Self.describe(error))"])
                }
            }
            let next = ledger.now().addingTimeInterval(interval)
            nextCycle.withLockedValue { $0 = next }
            try? await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
        }
    }

    // MARK: App account tokens

    /// A credit that gave `user` original transactions without an appAccountToken.
    struct TokenRequest: Sendable {
        let user: String
        let originalTransactionIds: [String]
    }

    private let tokenRequests = AsyncStream.makeStream(of: TokenRequest.self, bufferingPolicy: .bufferingNewest(1_000))

    /// Asks (in the background, after the credit is answered) that `user`'s bound token be set at
    /// Apple on each original transaction, so later renewals carry it; with
    /// `--set-app-account-tokens` only.
    func requestAppAccountTokens(user: String, credited transactions: [LedgerTransaction]) {
        guard setsAppAccountTokens else { return }
        var originals: [String] = []
        var seen: Set<String> = []
        for transaction in transactions where transaction.appAccountToken == nil && seen.insert(transaction.subscriptionKey).inserted {
            originals.append(transaction.subscriptionKey)
        }
        if !originals.isEmpty { tokenRequests.continuation.yield(TokenRequest(user: user, originalTransactionIds: originals)) }
    }

    private func setAppAccountTokens(_ request: TokenRequest) async {
        do {
            guard let text = try await ledger.appAccountToken(of: request.user), let token = UUID(uuidString: text) else { return }
            for original in request.originalTransactionIds {
                do {
                    try await client.setAppAccountToken(original, appAccountToken: token)
                } catch {
                    logger.warning("cannot set the app account token at Apple",
                                   metadata: ["originalTransactionId": "\(original)", "error": "\(error.description)"])
                }
            }
        } catch {
            logger.warning("cannot read the user's app account token", metadata: ["error": "\(error.description)"])
        }
    }

    /// One cycle: the window from the checkpoint (or `--reconcile-since`, or 24 hours back) to
    /// now, every page; the checkpoint moves to the window's end only when all of it was applied.
    func cycle() async throws(Failure) -> Cycle {
        let state: ReconcileState
        do {
            guard let claimed = try await ledger.claimReconcile(by: worker, lease: Self.lease) else {
                throw Failure.running(holder: try await ledger.reconcileState()?.leaseHolder)
            }
            state = claimed
        } catch let error as Failure {
            throw error
        } catch {
            throw .ledger(error as! LedgerError)
        }
        let end = ledger.now()
        let start = max(state.checkpoint.map { $0.addingTimeInterval(-Self.overlap) } ?? since ?? end.addingTimeInterval(-86_400),
                        end.addingTimeInterval(-Self.historyDepth))
        var fetched = 0, applied = 0, repeats = 0, refused = 0
        do {
            let request = NotificationHistoryRequest(startDate: start, endDate: end)
            var token: String?
            var seen: Set<String> = []
            repeat {
                let page = try await client.notificationHistoryPage(request, paginationToken: token)
                for item in page.notificationHistory {
                    guard let signedPayload = item.signedPayload else { continue }
                    fetched += 1
                    switch try await apply(signedPayload.jws) {
                    case .applied: applied += 1
                    case .repeated: repeats += 1
                    case .refused: refused += 1
                    }
                }
                token = page.hasMore ? page.paginationToken : nil
                if let token, !seen.insert(token).inserted {
                    throw AppStoreAPIError.unreadable(host: page.answer.host, reason: "the paginationToken \(token) repeats: the walk stops")
                }
                // A long walk keeps its lease; one that lost it stops, its checkpoint unmoved.
                guard try await ledger.renewReconcile(by: worker, lease: Self.lease) else { throw Failure.leaseLost }
            } while token != nil
            let outcome = ReconcileOutcome(fetched: fetched, applied: applied, repeats: repeats, refused: refused, checkpoint: end, error: nil)
            try await ledger.finishReconcile(by: worker, outcome: outcome)
            return Cycle(fetched: fetched, applied: applied, repeats: repeats, refused: refused, checkpoint: end)
        } catch {
            let failure: Failure = (error as? Failure) ?? (error as? AppStoreAPIError).map(Failure.apple)
                ?? .ledger(error as? LedgerError ?? .storageUnavailable("\(error)"))
            try? await ledger.finishReconcile(by: worker, outcome: ReconcileOutcome(fetched: fetched, applied: applied, repeats: repeats,
                                                                                    refused: refused, checkpoint: nil, error: Self.describe(failure)))
            throw failure
        }
    }

    enum Applied { case applied, repeated, refused }

    /// Applies one notification as `POST /v2/notifications` would, unless the log holds it
    /// already (a repeat). One the server refuses (not verified under its trust, another app, text
    /// the ledger cannot store) is logged and counted, never applied: the checkpoint still moves
    /// past it, since no later cycle could apply it either.
    private func apply(_ signedPayload: String) async throws -> Applied {
        var json = JSONWriter()
        json.beginObject()
        json.key("signedPayload"); json.string(signedPayload)
        json.endObject()
        let outcome = service.verifyNotification(body: json.finish())
        guard outcome.refusal == nil, let notification = outcome.notification else {
            return refused(because: outcome.refusal?.reason ?? "not a notification")
        }
        do {
            if let uuid = notification.notificationUUID, try await ledger.isNotificationLogged(uuid) { return .repeated }
            try await ledger.record(notification: outcome)
        } catch {
            // Text no ledger database stores alike: no later cycle could apply it either.
            guard error == .unstorableText else { throw error }
            return refused(because: error.description)
        }
        return .applied
    }

    private func refused(because reason: String) -> Applied {
        logger.warning("reconcile: a notification from Apple's history is refused", metadata: ["reason": "\(reason)"])
        return .refused
    }

    /// Fetches a customer's whole transaction history and records every transaction in it as
    /// seen, with its snapshot; answers their ids.
    func recordHistory(of transactionId: String) async throws(Failure) -> [String] {
        let pages: [HistoryResponse]
        do {
            pages = try await client.transactionHistory(transactionId)
        } catch {
            throw .apple(error)
        }
        let transactions = pages.flatMap { $0.signedTransactions.map(\.payload) }
        do {
            try await ledger.record(seen: transactions.compactMap(LedgerTransaction.init(signedTransaction:)))
        } catch {
            throw .ledger(error)
        }
        return transactions.compactMap(\.transactionId)
    }

    static func describe(_ failure: Failure) -> String {
        switch failure {
        case .running(let holder): "a cycle is running (\(holder ?? "another server"))"
        case .leaseLost: "the cycle ran past its lease and stopped; the next cycle starts from the same checkpoint"
        case .apple(let error): error.description
        case .ledger(let error): error.description
        }
    }
}
