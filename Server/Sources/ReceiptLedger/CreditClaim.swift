/// The store's answer for one transaction it was asked to credit: who holds it now (nobody when it
/// was revoked before anyone was credited, or its subscription is another user's), whether this very
/// call wrote that credit, whether the transaction is revoked, and who owns its subscription.
public struct CreditClaim: Sendable, Hashable {
    public var transactionId: String
    public var holder: String?
    public var isNew: Bool
    public var isRevoked: Bool
    public var subscriptionOwner: String?

    public init(transactionId: String, holder: String?, isNew: Bool, isRevoked: Bool = false, subscriptionOwner: String? = nil) {
        self.transactionId = transactionId
        self.holder = holder
        self.isNew = isNew
        self.isRevoked = isRevoked
        self.subscriptionOwner = subscriptionOwner
    }
}

/// The store's answer to a credit: the claims, or the transaction whose recorded appAccountToken is
/// bound to someone else, in which case nothing was credited (the sightings were recorded).
public enum ClaimAnswer: Sendable, Hashable {
    case claimed([CreditClaim])
    case appAccountTokenMismatch(transactionId: String)
}
