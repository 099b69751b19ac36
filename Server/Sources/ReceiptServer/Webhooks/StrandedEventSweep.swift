import Foundation
import Logging
import ReceiptLedger

/// Walks the outbox's waiting events, one chunk per round of the delivery worker, and makes due
/// those that no earlier pending event of their user holds back
/// (`Ledger.releaseStrandedWebhookEvents(after:limit:)`). Finishing an event moves its user's queue
/// on; a server older than the waiting events, run on the same ledger (a rollback, a rolling
/// upgrade), finishes events without doing so and would leave the next one waiting for ever. A
/// pass starts when the worker starts and then every `interval`; chunks keep each write short.
struct StrandedEventSweep {
    /// Waiting events looked at per write (about 3 ms of SQLite's writer on a backlog of 300 000).
    static let chunk = 1_000
    /// How soon a pass that failed starts again.
    static let retryAfterFailure: TimeInterval = 60

    let interval: TimeInterval
    private var cursor: String?
    private var nextPass: Date?  // nil: a pass is under way
    private var released = 0

    init(interval: TimeInterval) {
        self.interval = interval
    }

    /// One chunk of the pass under way, if one is; a pass that fails starts again within a minute.
    mutating func step(on ledger: Ledger, logger: Logger) async {
        if let nextPass {
            guard ledger.now() >= nextPass else { return }
            self.nextPass = nil
        }
        do {
            let step = try await ledger.releaseStrandedWebhookEvents(after: cursor, limit: Self.chunk)
            (cursor, released) = (step.cursor, released + step.released)
            if cursor != nil { return }
            if released > 0 {
                // Something finished events without moving their queues on: worth an operator's look.
                logger.warning("webhooks: events stranded behind finished ones were made due", metadata: ["events": "\(released)"])
            }
            released = 0
            nextPass = ledger.now().addingTimeInterval(interval)
        } catch {
            // The ledger is down: a pass from the start once it may be back, not an interval later.
            logger.warning("webhooks: cannot sweep the waiting events", metadata: ["error": "\(error)"])
            (cursor, released) = (nil, 0)
            nextPass = ledger.now().addingTimeInterval(min(interval, Self.retryAfterFailure))
        }
    }
}
