#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When each request may leave: per endpoint and host (`key`), no more than its ``RequestRate``
/// in any window of its interval, and none before a `Retry-After` instant Apple gave for that
/// endpoint. Each request reserves its departure instant before it waits, so concurrent callers
/// queue in order and a burst is spread over the window instead of being refused by Apple.
///
/// ``InMemoryRequestBudget`` serves one process; a store shared by several (receipt-server's
/// ledger) makes them share Apple's limits.
public protocol AppStoreRequestBudget: Sendable {
    /// Reserves the earliest instant at or after `now` that keeps `key` within `rate` and past any
    /// `Retry-After`, never before a reservation already made; nil, reserving nothing, when that
    /// instant is later than `latest`.
    func reserve(_ key: String, rate: RequestRate, now: Date, latest: Date) async throws -> Date?
    /// The `Retry-After` instant that still holds for `key` at `now`, if any.
    func blocked(_ key: String, at now: Date) async throws -> Date?
    /// Apple said (429) that nothing may be sent to `key` before `instant`.
    func block(_ key: String, until instant: Date) async throws
}

/// The rule every budget applies: the departure for a request to a key whose last departures
/// (oldest first, at most `rate.requests` kept) are `sent`, blocked until `blockedUntil`.
public enum RequestBudgetRule {
    public static func departure(sent: [Date], blockedUntil: Date?, rate: RequestRate, now: Date) -> Date {
        var departure = max(now, blockedUntil ?? now, sent.last ?? now)
        if sent.count >= rate.requests {
            departure = max(departure, sent[sent.count - rate.requests].addingTimeInterval(rate.interval))
        }
        return departure
    }

    /// `sent` with `departure` added, keeping the last `rate.requests`.
    public static func recording(_ departure: Date, in sent: [Date], rate: RequestRate) -> [Date] {
        Array((sent + [departure]).suffix(rate.requests))
    }
}

/// A budget for one process.
public actor InMemoryRequestBudget: AppStoreRequestBudget {
    private var departures: [String: [Date]] = [:]
    private var blockedUntil: [String: Date] = [:]

    public init() {}

    public func reserve(_ key: String, rate: RequestRate, now: Date, latest: Date) -> Date? {
        let sent = departures[key] ?? []
        let departure = RequestBudgetRule.departure(sent: sent, blockedUntil: blockedUntil[key], rate: rate, now: now)
        guard departure <= latest else { return nil }
        departures[key] = RequestBudgetRule.recording(departure, in: sent, rate: rate)
        return departure
    }

    public func blocked(_ key: String, at now: Date) -> Date? {
        guard let until = blockedUntil[key], until > now else { return nil }
        return until
    }

    public func block(_ key: String, until instant: Date) {
        blockedUntil[key] = max(blockedUntil[key] ?? instant, instant)
    }
}
