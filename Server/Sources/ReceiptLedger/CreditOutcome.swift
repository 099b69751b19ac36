/// What a credit request did, by transaction id, in the input's order.
public struct CreditOutcome: Sendable, Hashable {
    /// Credited by this request, to this user.
    public var credited: [String] = []
    /// Credited to this user by an earlier request.
    public var alreadyCredited: [String] = []
    /// Credited to another user: never re-credited.
    public var conflicts: [String] = []
    /// Refunded or revoked before anyone was credited (in this input or earlier): never credited.
    public var revoked: [String] = []

    public init(credited: [String] = [], alreadyCredited: [String] = [], conflicts: [String] = [], revoked: [String] = []) {
        self.credited = credited
        self.alreadyCredited = alreadyCredited
        self.conflicts = conflicts
        self.revoked = revoked
    }
}
