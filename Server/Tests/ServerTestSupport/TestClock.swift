import Foundation

/// A clock the tests move by hand, so the ledger's dates are exact: give a ledger `{ clock.now }`.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    /// A clock at `start`, 2023-11-14T22:13:20Z unless told.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

    /// The clock's instant.
    public var now: Date { lock.withLock { current } }

    /// Moves the clock on by `seconds`.
    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
