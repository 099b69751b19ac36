/// What a transaction locks while it works on a user's webhook queue: every transaction that adds
/// to a user's queue or finishes one of its events takes it (PostgreSQL; SQLite has one writer),
/// so that an event added while the one before it finishes is seen by the finisher, which then
/// makes it due (`LedgerSQL.promoteWebhookQueue`), and is never left waiting.
package struct LedgerLockKey: Sendable, Hashable, Comparable {
    /// Which kind of lock: one value per use, so that kinds never wait for each other.
    package let space: Int32
    package let value: Int32

    /// A user's webhook queue: FNV-1a of the id's UTF-8. Two users with one key only wait for
    /// each other.
    package static func webhookQueue(of user: String) -> LedgerLockKey {
        var hash: UInt32 = 2_166_136_261
        for byte in user.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return LedgerLockKey(space: 0x7768_6B71, value: Int32(bitPattern: hash))  // "whkq"
    }

    /// Transactions take their keys in this order, so that two never wait for each other in a circle.
    package static func < (lhs: LedgerLockKey, rhs: LedgerLockKey) -> Bool {
        (lhs.space, lhs.value) < (rhs.space, rhs.value)
    }
}
