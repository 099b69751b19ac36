import ReceiptLedger
import ServiceLifecycle

/// The credit ledger the server serves, and the token its routes require. Without one the ledger
/// routes do not exist (404).
public struct ServerLedger: Sendable {
    public let ledger: Ledger
    public let token: LedgerToken
    /// What the application must run beside its routes for the ledger to answer: a PostgreSQL
    /// store's connection pool (opened with `clientLifetime: .service`); none for SQLite.
    public let services: [any Service]
    /// The App Store Server API set-up, when the server has credentials: reconciling, fetching
    /// histories, setting app account tokens.
    public let appStore: AppStoreSettings?

    public init(ledger: Ledger, token: LedgerToken, services: [any Service] = [], appStore: AppStoreSettings? = nil) {
        self.ledger = ledger
        self.token = token
        self.services = services
        self.appStore = appStore
    }
}
