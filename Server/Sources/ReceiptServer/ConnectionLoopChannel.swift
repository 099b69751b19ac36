import HummingbirdCore
import Logging
import NIOCore

/// An HTTP/1 server whose connections each run on their own event loop: Hummingbird's
/// ``HTTP1Channel``, with every task of a connection preferring the loop that reads and writes
/// its socket.
///
/// Without the preference a request crosses threads twice: the loop hands the request to a task
/// on Swift's cooperative pool and the pool hands the answer back, waking the other thread each
/// time (measured in BENCHMARKS.md). With it, a request that does not leave for other work is
/// read, answered and written on one thread. Work that must not hold a loop still leaves it:
/// large bodies go to the ``VerificationGate``'s threads, the ledger to its own.
struct ConnectionLoopChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}

/// Runs Swift tasks' jobs on one NIO event loop.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension HTTPServerBuilder {
    /// ``HTTPServerBuilder/http1(configuration:)`` with each connection on its own event loop
    /// (``ConnectionLoopChannel``).
    static func http1OnConnectionLoops(configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            ConnectionLoopChannel(base: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }
}
