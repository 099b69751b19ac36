import Foundation

/// Thrown by `withDeadline` when the operation did not finish in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "no answer within \(limit.components.seconds) s" }
}

/// Runs `operation`, answering `DeadlineExceeded` once `limit` has passed even if the operation
/// ignores its cancellation: a database that stops answering (or a connection pool waiting to
/// reconnect to one that is down) must not hold a request forever. The operation is cancelled and
/// may still finish in the background; whatever it wrote then is kept, as after any lost answer.
func withDeadline<T: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.start(continuation)
        let work = Task {
            do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
        }
        let timer = Task {
            try await Task.sleep(for: limit)
            work.cancel()
            race.finish(.failure(DeadlineExceeded(limit: limit)))
        }
        race.onFinish { timer.cancel() }
    }
}

/// The first of the operation and the timer to finish resumes the caller; the other is ignored.
private final class DeadlineRace<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var finished = false
    private var cleanup: (@Sendable () -> Void)?

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock {
            if finished { return true }
            self.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, cleanup) = lock.withLock {
            if finished { return (nil as CheckedContinuation<T, any Error>?, nil as (@Sendable () -> Void)?) }
            finished = true
            defer { self.continuation = nil; self.cleanup = nil }
            return (self.continuation, self.cleanup)
        }
        cleanup?()
        continuation?.resume(with: result)
    }
}
