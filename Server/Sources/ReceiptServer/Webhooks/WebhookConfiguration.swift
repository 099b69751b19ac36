import Foundation

/// Where and how the server sends webhooks (`--webhook-url`, `--webhook-secret`,
/// `--webhook-retry-schedule`).
public struct WebhookConfiguration: Sendable {
    public static let defaultRetrySchedule = "5s,5m,30m,2h,5h,10h,10h"

    public var url: URL
    public var signer: WebhookSigner
    /// The waits before each retry: an event is tried once, then once after each of these.
    public var retrySchedule: [TimeInterval]
    /// Only a 2xx answered within this delivers.
    public var attemptTimeout: TimeInterval = 10
    /// How long a worker holds an event it is sending: past it (the worker was killed) another takes it.
    public var lease: TimeInterval = 30
    /// How often an idle worker looks for due events.
    public var pollInterval: TimeInterval = 0.5
    /// How often the worker looks for events left waiting behind nothing (`StrandedEventSweep`).
    public var strandedEventSweepInterval: TimeInterval = 3_600

    public init(url: String, secret: String, retrySchedule: String = defaultRetrySchedule) throws(WebhookOptionError) {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host?.isEmpty == false else {
            throw WebhookOptionError("--webhook-url is an http:// or https:// URL")
        }
        self.url = parsed
        signer = try WebhookSigner(secret: secret)
        self.retrySchedule = try Self.schedule(retrySchedule)
    }

    /// `5s,5m,30m,2h`: whole numbers of seconds, minutes, hours or days, comma-separated; at most 20.
    static func schedule(_ text: String) throws(WebhookOptionError) -> [TimeInterval] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !text.isEmpty, parts.count <= 20 else {
            throw WebhookOptionError("--webhook-retry-schedule is 1 to 20 waits such as 5s,5m,30m,2h")
        }
        return try parts.map { part throws(WebhookOptionError) in
            let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            guard let unit = part.last.flatMap({ units[$0] }), let count = Int(part.dropLast()), (0...100_000).contains(count) else {
                throw WebhookOptionError("--webhook-retry-schedule: '\(part)' is not a wait such as 5s, 5m, 2h or 1d")
            }
            return TimeInterval(count) * unit
        }
    }
}
