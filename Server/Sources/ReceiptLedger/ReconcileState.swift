import Foundation

/// Where healing from Apple's notification history stands: how far it has been applied, who runs
/// a cycle now, and how the last cycle went.
public struct ReconcileState: Sendable, Equatable {
    /// Everything Apple signed before this instant has been applied; nil before the first cycle.
    public var checkpoint: Date?
    /// The server running a cycle now, and until when its lease holds.
    public var leaseHolder: String?
    public var leaseUntil: Date?
    public var lastStarted: Date?
    public var lastFinished: Date?
    public var lastFetched: Int
    public var lastApplied: Int
    public var lastRepeats: Int
    /// Notifications of the last cycle that the server refused (not verified, another app).
    public var lastRefused: Int
    /// Why the last cycle stopped early, if it did.
    public var lastError: String?

    public init(checkpoint: Date? = nil, leaseHolder: String? = nil, leaseUntil: Date? = nil, lastStarted: Date? = nil,
                lastFinished: Date? = nil, lastFetched: Int = 0, lastApplied: Int = 0, lastRepeats: Int = 0, lastRefused: Int = 0,
                lastError: String? = nil) {
        self.checkpoint = checkpoint
        self.leaseHolder = leaseHolder
        self.leaseUntil = leaseUntil
        self.lastStarted = lastStarted
        self.lastFinished = lastFinished
        self.lastFetched = lastFetched
        self.lastApplied = lastApplied
        self.lastRepeats = lastRepeats
        self.lastRefused = lastRefused
        self.lastError = lastError
    }
}

/// What one cycle did, as `finishReconcile` records it.
public struct ReconcileOutcome: Sendable, Equatable {
    public var fetched: Int
    public var applied: Int
    public var repeats: Int
    public var refused: Int
    /// Where the checkpoint moves; nil leaves it (a cycle that stopped early).
    public var checkpoint: Date?
    public var error: String?

    public init(fetched: Int, applied: Int, repeats: Int, refused: Int = 0, checkpoint: Date?, error: String?) {
        self.fetched = fetched
        self.applied = applied
        self.repeats = repeats
        self.refused = refused
        self.checkpoint = checkpoint
        self.error = error
    }
}
