import Foundation
import ReceiptParser

/// One transaction of a verified input (a receipt's purchase or a StoreKit 2 signed transaction), as
/// the ledger records and credits it. Build it only from input the server has verified.
public struct LedgerTransaction: Sendable, Hashable {
    /// The App Store's transaction id: the ledger's key, the same in a receipt and in a JWS.
    public var transactionId: String
    public var originalTransactionId: String?
    public var productId: String?
    public var bundleId: String?
    /// `Production`, `Sandbox`, `Xcode`, or what the input said.
    public var environment: String
    public var purchaseDate: Date?
    public var expiresDate: Date?
    public var source: TransactionSource
    /// The `appAccountToken` the app set at purchase (StoreKit 2 only), lowercased so that it compares
    /// with a bound UUID whatever case the App Store wrote it in.
    public var appAccountToken: String?
    /// A receipt's cancellation date or a JWS's revocation date: the ledger marks the transaction revoked.
    public var revocationDate: Date?
    public var revocationReason: String?
    /// The signed word this sighting carries (a receipt's purchase in StoreKit 2's shape, dated by
    /// the receipt's creation date): kept as the transaction's snapshot when it is the latest, and
    /// only then is the sighting's revocation, or its absence, taken. Nil for a sighting built by
    /// hand, which can only add a revocation.
    public var snapshot: SignedTransaction?

    /// The original transaction id its subscription is known by: its own id when it names none.
    public var subscriptionKey: String { originalTransactionId ?? transactionId }

    public init(
        transactionId: String, originalTransactionId: String? = nil, productId: String? = nil,
        bundleId: String? = nil, environment: String, purchaseDate: Date? = nil, expiresDate: Date? = nil,
        source: TransactionSource, appAccountToken: String? = nil, revocationDate: Date? = nil,
        revocationReason: String? = nil, snapshot: SignedTransaction? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.bundleId = bundleId
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.source = source
        self.appAccountToken = appAccountToken?.lowercased()
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.snapshot = snapshot
    }
}
