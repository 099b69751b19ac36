/// A dictionary of at most `capacity` entries behind a readers-writer lock: past the capacity an
/// arbitrary entry is dropped. Lookups share the lock, so threads that all hit a warm cache never
/// sleep waiting for each other: with a mutex, receipt-dump's two threads met there ~70 times in
/// 2 000 receipts, and each meeting put one to sleep (2 % of that batch). An insertion has it alone.
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // @unchecked: `entries` is read only with `lock` held for reading, written only with it held
    // alone.
    let capacity: Int
    private let lock = ReadWriteLock()
    private var entries: [Key: Value] = [:]

    init(capacity: Int) {
        precondition(capacity > 0, "a cache holds at least one entry")
        self.capacity = capacity
    }

    subscript(key: Key) -> Value? {
        lock.withReadLock { entries[key] }
    }

    func insert(_ value: Value, for key: Key) {
        lock.withLock {
            if entries[key] == nil, entries.count >= capacity, let victim = entries.keys.first {
                entries[victim] = nil
            }
            entries[key] = value
        }
    }

    var count: Int {
        lock.withReadLock { entries.count }
    }
}
