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
/// A service of the application when it runs every `interval` seconds.
public final class Reconciler: Service, Sendable {
    /// What a cycle did, as `POST /v1/reconcile` answers it.
    public struct Cycle: Sendable, Equatable {
        public var fetched: Int
        public var applied: Int
        public var repeats: Int
        public var checkpoint: Date
    }

    /// Why a cycle or a fetch did not happen.
    enum Failure: Error {
        /// Another server runs a cycle now.
        case running(holder: String?)
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

    init(client: AppStoreServerAPIClient, ledger: Ledger, service: ReceiptService, interval: Double?, since: Date?, logger: Logger) {
        self.client = client
        self.ledger = ledger
        self.service = service
        self.interval = interval
        self.since = since
        self.logger = logger
    }

    /// When the next scheduled cycle starts; nil without `--reconcile-interval`.
    var next: Date? { nextCycle.withLockedValue { $0 } }

    public func run() async throws {
        guard let interval else {
            // Cycles only when asked (POST /v1/reconcile): this service just holds the client.
            try? await gracefulShutdown()
            try? await client.shutdown()
            return
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let cycle = try await self.cycle()
                    self.logger.info("reconciled with Apple's notification history",
                                     metadata: ["fetched": "\(cycle.fetched)", "applied": "\(cycle.applied)", "repeats": "\(cycle.repeats)"])
                } catch {
                    // A cycle running on another server is no failure: this one waits for its next turn.
                    if let failure = error as? Failure {
                        if case .running = failure {} else {
                            self.logger.warning("reconcile cycle failed", metadata: ["error": "\(Self.describe(failure))"])
                        }
                    }
                }
                let next = self.ledger.now().addingTimeInterval(interval)
                self.nextCycle.withLockedValue { $0 = next }
                try? await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
            }
        }
        try? await client.shutdown()
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
        var fetched = 0, applied = 0, repeats = 0
        do {
            let request = NotificationHistoryRequest(startDate: start, endDate: end)
            var token: String?
            var seen: Set<String> = []
            repeat {
                let page = try await client.notificationHistoryPage(request, paginationToken: token)
                if case .array(let items)? = page.body["notificationHistory"] {
                    for item in items {
                        guard case .string(let signedPayload)? = item["signedPayload"] else { continue }
                        fetched += 1
                        if try await apply(signedPayload) { applied += 1 } else { repeats += 1 }
                    }
                }
                token = page.bool("hasMore") == true ? page.string("paginationToken") : nil
                if let token, !seen.insert(token).inserted {
                    throw AppStoreAPIError.unreadable(host: page.host, reason: "the paginationToken \(token) repeats: the walk stops")
                }
            } while token != nil
            let outcome = ReconcileOutcome(fetched: fetched, applied: applied, repeats: repeats, checkpoint: end, error: nil)
            try await ledger.finishReconcile(by: worker, outcome: outcome)
            return Cycle(fetched: fetched, applied: applied, repeats: repeats, checkpoint: end)
        } catch {
            let failure: Failure = (error as? AppStoreAPIError).map(Failure.apple) ?? .ledger(error as? LedgerError ?? .storageUnavailable("\(error)"))
            try? await ledger.finishReconcile(by: worker, outcome: ReconcileOutcome(fetched: fetched, applied: applied, repeats: repeats,
                                                                                    checkpoint: nil, error: Self.describe(failure)))
            throw failure
        }
    }

    /// Applies one notification as `POST /v2/notifications` would; false when the log holds it
    /// already (a repeat) or the server refuses it.
    private func apply(_ signedPayload: String) async throws -> Bool {
        var json = JSONWriter()
        json.beginObject()
        json.key("signedPayload"); json.string(signedPayload)
        json.endObject()
        let outcome = service.verifyNotification(body: json.finish())
        guard outcome.refusal == nil, let notification = outcome.notification else {
            logger.warning("reconcile: a notification from Apple's history is refused", metadata: ["reason": "\(outcome.refusal!.reason)"])
            return false
        }
        if let uuid = notification.notificationUUID, try await ledger.isNotificationLogged(uuid) { return false }
        try await ledger.record(notification: outcome)
        return true
    }

    /// Fetches a customer's whole transaction history and records every transaction in it as
    /// seen, with its snapshot; answers their ids.
    func recordHistory(of transactionId: String) async throws(Failure) -> [String] {
        let pages: [AppStoreAnswer]
        do {
            pages = try await client.transactionHistory(transactionId)
        } catch {
            throw .apple(error)
        }
        let transactions = pages.flatMap(\.transactions)
        do {
            try await ledger.record(seen: transactions.compactMap(LedgerTransaction.init(signedTransaction:)))
        } catch {
            throw .ledger(error)
        }
        return transactions.compactMap(\.transactionId)
    }

    static func describe(_ failure: Failure) -> String {
        switch failure {
        case .running(let holder): "a cycle is running on \(holder ?? "another server")"
        case .apple(let error): error.description
        case .ledger(let error): error.description
        }
    }
}
