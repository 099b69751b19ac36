#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the client reads the time and waits: the wall clock, because Apple's `Retry-After`
/// is a UNIX instant. Tests may give another.
public protocol AppStoreClock: Sendable {
    func now() -> Date
    /// Returns at `instant` or later; throws when the task is cancelled.
    func sleep(until instant: Date) async throws
}

/// The system's wall clock.
public struct SystemAppStoreClock: AppStoreClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(until instant: Date) async throws {
        // At most a day at a time: no instant, however far, overflows the conversion.
        while true {
            let seconds = instant.timeIntervalSinceNow
            guard seconds > 0 else { return }
            try await Task.sleep(for: .milliseconds(Int64((min(seconds, 86_400) * 1000).rounded(.up))))
        }
    }
}
