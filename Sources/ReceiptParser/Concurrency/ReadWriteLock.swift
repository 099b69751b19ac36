#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one lock: a pthread readers-writer lock. Many threads may hold it at once to
/// read (``withReadLock(_:)``), one alone to change what it guards (``withLock(_:)``).
///
/// Shared reading is what the caches need: threads that all hit a warm cache never sleep
/// waiting for each other (see ``BoundedCache``). pthread because `Synchronization.Mutex` needs
/// macOS 15 and the package supports macOS 13. `package`: receipt-dump uses it too; it is not
/// part of the library's API.
package final class ReadWriteLock: @unchecked Sendable {
    // @unchecked: the pthread lock is what makes sharing safe; it lives at a fixed address.
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    package init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Runs `body` holding the lock alone: no reader and no other writer meanwhile.
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Runs `body` holding the lock for reading, shared with other readers.
    package func withReadLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
