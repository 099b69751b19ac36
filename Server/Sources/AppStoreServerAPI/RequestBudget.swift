#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When each request may leave: per endpoint and host, no more than its ``RequestRate`` in any
/// window of its interval, and none before a `Retry-After` instant Apple gave for that endpoint.
///
/// Each request reserves its departure instant here before it waits, so concurrent callers
/// queue in order and a burst is spread over the window instead of being refused by Apple.
actor RequestBudget {
    private var departures: [String: [Date]] = [:]
    private var blockedUntil: [String: Date] = [:]

    /// Reserves the earliest instant at or after `now` that keeps `key` within `rate` and past
    /// any `Retry-After`; nil, reserving nothing, when that instant is later than `latest`.
    func reserve(_ key: String, rate: RequestRate, now: Date, latest: Date) -> Date? {
        var sent = departures[key] ?? []
        // First come, first served: never before a reservation already made.
        var departure = max(now, blockedUntil[key] ?? now, sent.last ?? now)
        if sent.count >= rate.requests {
            departure = max(departure, sent[sent.count - rate.requests].addingTimeInterval(rate.interval))
        }
        guard departure <= latest else { return nil }
        sent.append(departure)
        // Departures are in order; only the last `requests` decide the next one.
        if sent.count > rate.requests { sent.removeFirst(sent.count - rate.requests) }
        departures[key] = sent
        return departure
    }

    /// The `Retry-After` instant that still holds for `key` at `now`, if any.
    func blocked(_ key: String, at now: Date) -> Date? {
        guard let until = blockedUntil[key], until > now else { return nil }
        return until
    }

    /// Apple said (429) that nothing may be sent to `key` before `instant`.
    func block(_ key: String, until instant: Date) {
        blockedUntil[key] = max(blockedUntil[key] ?? instant, instant)
    }
}
