import Foundation
import ReceiptLedger
import ServerTestSupport

/// One test's database (an SQLite file's path or a PostgreSQL URL) and the stores opened on it,
/// all closed when the test is done.
final class TestDatabase: @unchecked Sendable {
    let kind: StoreKind
    let location: String
    private let lock = NSLock()
    private var opened: [any LedgerStore] = []

    init(kind: StoreKind, location: String) {
        self.kind = kind
        self.location = location
    }

    /// Another store on this database, as another receipt-server process would open it.
    func openStore(writesWebhookEvents: Bool = false) async throws -> any LedgerStore {
        let store: any LedgerStore = switch kind {
        case .sqlite: try SQLiteLedgerStore(path: location, writesWebhookEvents: writesWebhookEvents)
        case .postgres: try await PostgresLedgerStore(url: location, writesWebhookEvents: writesWebhookEvents)
        }
        lock.withLock { opened.append(store) }
        return store
    }

    /// A ledger on a first store, handed to `body`; every store closed afterwards, whatever happens.
    static func use(
        _ database: TestDatabase, clock: TestClock, writesWebhookEvents: Bool = false, _ body: (Ledger, TestDatabase) async throws -> Void
    ) async throws {
        do {
            let ledger = Ledger(store: try await database.openStore(writesWebhookEvents: writesWebhookEvents), now: { clock.now })
            try await body(ledger, database)
        } catch {
            await database.closeAll()
            throw error
        }
        await database.closeAll()
    }

    private func closeAll() async {
        for store in lock.withLock({ opened }) {
            if let store = store as? PostgresLedgerStore { await store.close() }
            if let store = store as? SQLiteLedgerStore { try? store.close() }
        }
    }
}
