import Foundation
import Logging
import NIOConcurrencyHelpers
import ReceiptLedger

/// Whether the server can serve: with a ledger, whether its database answers a read within a
/// deadline. `GET /health/ready` asks; `/health` (liveness) does not.
struct Readiness: Sendable {
    let ledger: Ledger?
    /// How long the database may take to answer before the server is reported not ready.
    var deadline: Duration = .seconds(2)

    /// Nil when ready; otherwise the refusal that says why (503).
    func check(logger: Logger) async -> Refusal? {
        guard let ledger else { return nil }
        let answered = await Self.first(within: deadline) { () async -> LedgerError? in
            do throws(LedgerError) {
                // The cheapest read every store has: an indexed range that is empty.
                _ = try await ledger.store.uncredited(firstSeenBefore: .distantPast, limit: 1)
                return nil
            } catch {
                return error
            }
        }
        switch answered {
        case .some(nil):
            return nil
        case .some(let error?):
            logger.error("not ready", metadata: ["error": .string(error.description)])
            return Refusal(.serviceUnavailable, code: "ledgerUnavailable", reason: "the ledger's database cannot be reached")
        case nil:
            logger.error("not ready", metadata: ["error": .string("the ledger's database did not answer within \(deadline)")])
            return Refusal(.serviceUnavailable, code: "ledgerUnavailable", reason: "the ledger's database did not answer within \(deadline)")
        }
    }

    /// `work`'s result, or nil when it has not finished within `deadline`. The work is left to end
    /// on its own (the stores bound their own calls): a database that never answers must not hold
    /// the readiness answer.
    private static func first<Value: Sendable>(within deadline: Duration, _ work: @escaping @Sendable () async -> Value) async -> Value? {
        let done = NIOLockedValueBox(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            @Sendable func finish(_ value: Value?) {
                let first = done.withLockedValue { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: value) }
            }
            Task { finish(await work()) }
            Task {
                try? await Task.sleep(for: deadline)
                finish(nil)
            }
        }
    }
}
