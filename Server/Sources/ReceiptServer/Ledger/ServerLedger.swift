import ReceiptLedger

/// The credit ledger the server serves, and the token its routes require. Without one the ledger
/// routes do not exist (404).
public struct ServerLedger: Sendable {
    public let ledger: Ledger
    public let token: LedgerToken

    public init(ledger: Ledger, token: LedgerToken) {
        self.ledger = ledger
        self.token = token
    }
}
