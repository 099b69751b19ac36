/// The store's answer for one transaction it was asked to credit: who holds it now (nobody when it
/// was revoked before anyone was credited), and whether this very call wrote that credit.
public struct CreditClaim: Sendable, Hashable {
    public var transactionId: String
    public var holder: String?
    public var isNew: Bool

    public init(transactionId: String, holder: String?, isNew: Bool) {
        self.transactionId = transactionId
        self.holder = holder
        self.isNew = isNew
    }
}
