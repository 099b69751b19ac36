import CoreMetrics
import NIOConcurrencyHelpers
import NIOPosix
import ServiceLifecycle

/// Runs verifications on a thread pool of their own, at most `limit` at once, so expensive
/// bodies neither block the event loops (health checks, other connections) nor make every
/// other request wait without bound: a request that does not get a slot within `timeout`
/// is answered "busy" instead.
///
/// Slots are handed out first come, first served. The timeout covers the wait for a slot only;
/// a verification, once started, runs to its end (OpenSSL cannot be interrupted), which the
/// library's input limits keep short.
final class VerificationGate: Sendable {
    let limit: Int
    let timeout: Duration
    private let pool: NIOThreadPool
    private let state: NIOLockedValueBox<State>
    /// Counted when a request has to wait for a slot, and when it gives up waiting.
    private let waits: CoreMetrics.Counter?
    private let refusals: CoreMetrics.Counter?

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var free: Int
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    init(limit: Int, timeout: Duration, waits: CoreMetrics.Counter? = nil, refusals: CoreMetrics.Counter? = nil) {
        precondition(limit > 0, "at least one verification must be able to run")
        self.limit = limit
        self.timeout = timeout
        self.waits = waits
        self.refusals = refusals
        pool = NIOThreadPool(numberOfThreads: limit)
        pool.start()
        state = NIOLockedValueBox(State(free: limit))
    }

    /// `work`'s result, computed on the gate's threads (or, for work known to be short, on the
    /// caller's once it holds a slot); nil when no slot freed up in time (or the server is
    /// shutting down).
    func run<Result: Sendable>(onTheCallersThread: Bool = false, _ work: @escaping @Sendable () -> Result) async -> Result? {
        guard await acquire() else { return nil }
        defer { release() }
        if onTheCallersThread { return work() }
        return try? await pool.runIfActive(work)
    }

    /// Stops the threads once running work has finished.
    func shutdown() async {
        try? await pool.shutdownGracefully()
    }

    private func acquire() async -> Bool {
        await withCheckedContinuation { continuation in
            let id: UInt64? = state.withLockedValue { state in
                if state.free > 0 {
                    state.free -= 1
                    return nil
                }
                state.nextID += 1
                state.waiters.append(Waiter(id: state.nextID, continuation: continuation))
                return state.nextID
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            waits?.increment()
            Task { [timeout] in
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    /// Hands the slot to the longest waiter, or frees it.
    private func release() {
        let next: Waiter? = state.withLockedValue { state in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume(returning: true)
    }

    /// Gives up on waiter `id` if it is still waiting.
    private func expire(_ id: UInt64) {
        let expired: Waiter? = state.withLockedValue { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        guard let expired else { return }
        refusals?.increment()
        expired.continuation.resume(returning: false)
    }
}

/// Shuts the gate's threads down with the server.
struct VerificationGateService: Service {
    let gate: VerificationGate

    func run() async throws {
        try? await gracefulShutdown()
        await gate.shutdown()
    }
}
