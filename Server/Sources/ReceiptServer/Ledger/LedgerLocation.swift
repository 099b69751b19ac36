import Foundation
import ReceiptLedger

/// Where the credit ledger lives, as `--ledger` names it: `sqlite:PATH` or
/// `postgres://USER@HOST:PORT/DB`.
public enum LedgerLocation: Sendable, Hashable {
    case sqlite(path: String)
    case postgres(url: String)

    /// Reads a `--ledger` value; a malformed one is refused with a message for the command line.
    public init(_ text: String) throws(LedgerOptionError) {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty, !path.hasPrefix("//") else {
                throw LedgerOptionError("--ledger sqlite:PATH needs a file path, such as sqlite:/var/lib/receipt-server/ledger.sqlite")
            }
            self = .sqlite(path: path)
            return
        }
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            guard let url = URLComponents(string: text), url.user?.isEmpty == false, url.host?.isEmpty == false,
                  url.port != nil, url.path.count > 1, !url.path.dropFirst().contains("/"), url.query == nil, url.fragment == nil
            else {
                throw LedgerOptionError("--ledger postgres://USER@HOST:PORT/DB needs a user, a host, a port and a database name")
            }
            self = .postgres(url: text)
            return
        }
        throw LedgerOptionError("--ledger is sqlite:PATH or postgres://USER@HOST:PORT/DB")
    }

    /// Opens (and migrates) the store: the one place that chooses an implementation.
    public func openStore() async throws(LedgerError) -> any LedgerStore {
        switch self {
        case .sqlite(let path):
            return try SQLiteLedgerStore(path: path)
        case .postgres:
            // PostgresLedgerStore(url:) is written on another branch; it is wired here at merge.
            throw .storageUnavailable("PostgreSQL ledgers are not available in this build of receipt-server")
        }
    }
}
