import Foundation
import Synchronization

/// An event of the webhook outbox as a delivery worker handles it: its `webhook-id`, the same on
/// every attempt, and the exact body to post and sign.
public struct WebhookEvent: Sendable, Hashable {
    /// `msg_`, the creation instant, this process's write count and the position in the write (so
    /// that ids sort in creation order, also within one millisecond), then 64 random bits (unique
    /// across processes): the `webhook-id`.
    public var id: String
    public var user: String
    public var type: String
    public var body: [UInt8]
    /// Attempts made before this one.
    public var attempts: Int
    /// Why the last attempt failed (failed events only).
    public var lastError: String?
    /// When the last attempt failed (failed events only).
    public var failedAt: Date?

    public init(id: String, user: String, type: String, body: [UInt8], attempts: Int, lastError: String? = nil, failedAt: Date? = nil) {
        self.id = id
        self.user = user
        self.type = type
        self.body = body
        self.attempts = attempts
        self.lastError = lastError
        self.failedAt = failedAt
    }

    /// A new id for the `position`th event of a write at `instant`, the `write`th of this process.
    static func newID(at instant: Date, write: UInt64, position: Int) -> String {
        "msg_" + padded(String(LedgerDate.milliseconds(instant)), 13) + padded(String(write % 10_000_000_000), 10)
            + padded(String(position), 4) + padded(String(UInt64.random(in: .min ... .max), radix: 16), 16)
    }

    /// This process's writes that made events, counted: the order of ids within one millisecond.
    static let writes = WriteCounter()

    private static func padded(_ digits: String, _ width: Int) -> String {
        String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// One attempt at sending a leased event, as recorded: delivered; or failed, to try again at
/// `retryAt`, or (nil) failed for good.
public struct WebhookAttempt: Sendable, Hashable {
    public var id: String
    public var delivered: Bool
    public var error: String?
    public var retryAt: Date?

    public init(id: String, delivered: Bool, error: String? = nil, retryAt: Date? = nil) {
        self.id = id
        self.delivered = delivered
        self.error = error
        self.retryAt = retryAt
    }
}

/// A counter shared by every store of the process.
final class WriteCounter: Sendable {
    private let count = Mutex<UInt64>(0)

    func next() -> UInt64 {
        count.withLock { value in
            value += 1
            return value
        }
    }
}
