/// Why the ledger refused or could not do what it was asked. The server maps `storageUnavailable`
/// to 503 and the rest to 4xx; none of them means a credit was written.
public enum LedgerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The requested transaction id is not among the verified input's transactions (422).
    case transactionNotInInput(transactionId: String)
    /// The requested transaction is already credited to another user (409).
    case creditedToAnotherUser(transactionId: String)
    /// The requested transaction was refunded or revoked before anyone was credited (409).
    case transactionRevoked(transactionId: String)
    /// The transaction carries an appAccountToken that is not bound to this user, or to no one (409).
    case appAccountTokenMismatch(transactionId: String)
    /// The token is bound to another user, or the user to another token: bindings are permanent (409).
    case bindingConflict(user: String)
    /// A text value holds a NUL character (U+0000), which SQLite would keep and PostgreSQL refuse:
    /// both refuse it, before the database sees it (422).
    case unstorableText
    /// The database could not be opened, read or written (503): the message says what it reported.
    case storageUnavailable(String)

    public var description: String {
        switch self {
        case .transactionNotInInput(let id): "transaction \(id) is not in the verified input"
        case .creditedToAnotherUser(let id): "transaction \(id) is credited to another user"
        case .transactionRevoked(let id): "transaction \(id) was refunded or revoked before it was credited"
        case .appAccountTokenMismatch(let id): "transaction \(id) carries an appAccountToken not bound to this user"
        case .bindingConflict(let user): "user \(user) or the appAccountToken is already bound otherwise"
        case .unstorableText: "a text value holds a NUL character (U+0000), which the ledger does not store"
        case .storageUnavailable(let message): "the ledger's database is unavailable: \(message)"
        }
    }
}
