import Foundation

/// A credit: a transaction given to a user, once, with what it bought and whether it was revoked since.
public struct Credit: Sendable, Hashable {
    public var transactionId: String
    public var user: String
    public var creditedAt: Date
    public var productId: String?
    public var revokedAt: Date?
    public var revocationReason: String?

    public init(
        transactionId: String, user: String, creditedAt: Date, productId: String? = nil,
        revokedAt: Date? = nil, revocationReason: String? = nil
    ) {
        self.transactionId = transactionId
        self.user = user
        self.creditedAt = creditedAt
        self.productId = productId
        self.revokedAt = revokedAt
        self.revocationReason = revocationReason
    }
}
