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
/// There is no task of its own: each caller queues its write, then takes a turn on GRDB's writer
/// queue, which commits whatever is queued then (its write, unless an earlier turn took it). When
/// the turn returns, the write has been committed or failed, by this turn or an earlier one.
final class SQLiteGroupCommit: @unchecked Sendable {
    // @unchecked: `queued` is guarded by `lock`; a write's outcome is set on the writer queue
    // before the turn that set it returns, and read after.
    private let pool: DatabasePool
    private let lock = NSLock()
    private var queued: [any QueuedWrite] = []
    private var turnsThatCommitted = 0

    /// How many transactions committed writes, for the tests.
    var commits: Int { lock.withLock { turnsThatCommitted } }

    init(pool: DatabasePool) {
        self.pool = pool
    }

    func write<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T {
        let write = Write(work)
        lock.withLock { queued.append(write) }
        // Not GRDB's cancellable `write`: cancelling it interrupts SQLite, which would fail the
        // other callers' writes of the batch. A caller past its deadline stops waiting instead.
        await withCheckedContinuation { (turnEnded: CheckedContinuation<Void, Never>) in
            pool.asyncWriteWithoutTransaction { db in
                self.commitQueued(db)
                turnEnded.resume()
            }
        }
        return try write.outcome()
    }

    /// One turn of the writer: everything queued, in one transaction; one at a time if that fails.
    private func commitQueued(_ db: Database) {
        let batch: [any QueuedWrite] = lock.withLock {
            defer { queued.removeAll(keepingCapacity: true) }
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
    /// Ends the write: committed (nil) or failed.
    func finish(_ failure: (any Error)?)
}

private final class Write<T: Sendable>: QueuedWrite, @unchecked Sendable {
    // @unchecked: `answer` and `outcome` are written on the writer queue during a turn and read by
    // the caller after that turn has returned (GRDB's queue orders the two); the lock makes it plain.
    private let work: @Sendable (any LedgerConnection) throws -> T
    private let lock = NSLock()
    private var answer: T?
    private var result: Result<T, any Error>?

    init(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) {
        self.work = work
    }

    func run(on db: Database) throws {
        let value = try work(SQLiteLedgerConnection(db: db))
        lock.withLock { answer = value }
    }

    func finish(_ failure: (any Error)?) {
        lock.withLock {
            if let failure {
                result = .failure(failure)
            } else if let answer {
                result = .success(answer)
            } else {
                result = .failure(LedgerError.storageUnavailable("the write did not complete"))
            }
        }
    }

    /// What the write answers, once a turn of the writer has taken it.
    func outcome() throws -> T {
        guard let result = lock.withLock({ result }) else { throw LedgerError.storageUnavailable("the write was not run") }
        return try result.get()
    }
}
