import Foundation
import Logging
import ReceiptLedger
import ServiceLifecycle

/// Where the credit ledger lives, as `--ledger` names it: `sqlite:PATH` or
/// `postgres://USER@HOST:PORT/DB` (optionally with a password and `?sslmode=disable|prefer|require`).
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
            do {
                try PostgresLedgerStore.checkURL(text)
            } catch .storageUnavailable(let message) {
                throw LedgerOptionError("--ledger: \(message)")
            } catch {
                throw LedgerOptionError("--ledger: \(error)")
            }
            self = .postgres(url: text)
            return
        }
        throw LedgerOptionError("--ledger is sqlite:PATH or postgres://USER@HOST:PORT/DB")
    }

    /// The location for messages: a PostgreSQL URL without its password.
    public var displayName: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url): PostgresLedgerStore.redacted(url: url)
        }
    }

    /// Opens (and migrates) the store, the one place that chooses an implementation, as the
    /// server's ledger with `token`. A PostgreSQL store's connection pool is one of the ledger's
    /// `services`: it starts and stops with the application that runs them. With `webhooks`, the
    /// store writes webhook events and their delivery is another service.
    public func openLedger(token: LedgerToken, webhooks: WebhookConfiguration? = nil,
                           logger: Logger = Logger(label: "receipt-server")) async throws(LedgerError) -> ServerLedger {
        let ledger: Ledger
        var services: [any Service] = []
        switch self {
        case .sqlite(let path):
            ledger = Ledger(store: try SQLiteLedgerStore(path: path, writesWebhookEvents: webhooks != nil))
        case .postgres(let url):
            let store = try await PostgresLedgerStore(url: url, clientLifetime: .service, writesWebhookEvents: webhooks != nil)
            ledger = Ledger(store: store)
            services.append(store)
        }
        if let webhooks { services.append(WebhookDelivery(ledger: ledger, configuration: webhooks, logger: logger)) }
        return ServerLedger(ledger: ledger, token: token, services: services)
    }
}
