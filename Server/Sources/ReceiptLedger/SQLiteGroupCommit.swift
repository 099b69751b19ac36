import Foundation
import GRDB

/// Group commit: the writes waiting for SQLite's one writer commit together, in one synced
/// transaction.
///
/// Every commit is synced (`synchronous = FULL`), and the sync, with the pages written for it, is
/// most of what a write costs: writes that arrive while one commits queue here, and the next turn
/// of the writer commits all of them at once. When any write of a batch fails, the batch is rolled
/// back and its writes are run again one transaction each, in the same order: each then commits or
/// fails on its own, as if there had been no batch (savepoints would do the same in one pass, but
/// a savepoint makes SQLite journal every page the write touches, which costs more than the
/// commits saved). No caller hears "committed" before the sync that made it durable.
///
/// There is no task of its own: a write that finds no turn of the writer pending asks GRDB's
/// writer queue for one, and that turn commits whatever is queued when it starts. Each caller is
/// resumed by the turn that committed (or failed) its write, as soon as it has: not after the
/// turns queued before its own, which may commit other writes and sync again.
final class SQLiteGroupCommit: @unchecked Sendable {
    // @unchecked: `queued`, `turnPending` and `turnsThatCommitted` are guarded by `lock`.
    private let pool: DatabasePool
    private let lock = NSLock()
    private var queued: [any QueuedWrite] = []
    private var turnPending = false
    private var turnsThatCommitted = 0

    /// How many transactions committed writes, for the tests.
    var commits: Int { lock.withLock { turnsThatCommitted } }

    /// How many writes wait for a turn, for the tests.
    var waiting: Int { lock.withLock { queued.count } }

    init(pool: DatabasePool) {
        self.pool = pool
    }

    func write<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T {
        // Not GRDB's cancellable `write`: cancelling it interrupts SQLite, which would fail the
        // other callers' writes of the batch. A caller past its deadline stops waiting instead.
        let outcome = await withCheckedContinuation { (finished: CheckedContinuation<Result<T, any Error>, Never>) in
            let write = Write(work, finished: finished)
            let asksForTurn = lock.withLock {
                queued.append(write)
                defer { turnPending = true }
                return !turnPending
            }
            if asksForTurn {
                pool.asyncWriteWithoutTransaction { db in self.commitQueued(db) }
            }
        }
        return try outcome.get()
    }

    /// One turn of the writer: everything queued, in one transaction; one at a time if that fails.
    /// Writes queued from now on ask for the next turn.
    private func commitQueued(_ db: Database) {
        let batch: [any QueuedWrite] = lock.withLock {
            defer {
                queued.removeAll(keepingCapacity: true)
                turnPending = false
            }
            return queued
        }
        guard !batch.isEmpty else { return }
        var aWriteFailed = false
        do {
            try db.inTransaction(.immediate) {
                for write in batch {
                    do { try write.run(on: db) } catch { aWriteFailed = true; throw error }
                }
                return .commit
            }
            lock.withLock { turnsThatCommitted += 1 }
            for write in batch { write.finish(nil) }
            return
        } catch where batch.count == 1 || !aWriteFailed {
            // The transaction itself failed (no write lock within the busy timeout, a failed
            // sync): each write would have met the same, and must not wait for it again.
            for write in batch { write.finish(error) }
            return
        } catch {
            // Whether the write that failed failed because of another, only running them apart can say.
        }
        for write in batch {
            do {
                try db.inTransaction(.immediate) {
                    try write.run(on: db)
                    return .commit
                }
                lock.withLock { turnsThatCommitted += 1 }
                write.finish(nil)
            } catch {
                write.finish(error)
            }
        }
    }
}

/// A queued write, whatever it answers.
private protocol QueuedWrite: AnyObject {
    /// Runs the write in the turn's transaction, keeping what it answers.
    func run(on db: Database) throws
    /// Ends the write, committed (nil) or failed, and resumes its caller: called once.
    func finish(_ failure: (any Error)?)
}

private final class Write<T: Sendable>: QueuedWrite, @unchecked Sendable {
    // @unchecked: `answer` is written and read on the writer queue, during the turn that runs the
    // write and then finishes it.
    private let work: @Sendable (any LedgerConnection) throws -> T
    private let finished: CheckedContinuation<Result<T, any Error>, Never>
    private var answer: T?

    init(_ work: @escaping @Sendable (any LedgerConnection) throws -> T, finished: CheckedContinuation<Result<T, any Error>, Never>) {
        self.work = work
        self.finished = finished
    }

    func run(on db: Database) throws {
        answer = try work(SQLiteLedgerConnection(db: db))
    }

    func finish(_ failure: (any Error)?) {
        if let failure {
            finished.resume(returning: .failure(failure))
        } else if let answer {
            finished.resume(returning: .success(answer))
        } else {
            finished.resume(returning: .failure(LedgerError.storageUnavailable("the write did not complete")))
        }
    }
}
