import Foundation
import Testing
import ReceiptLedger
import ServerTestSupport

/// A ledger over a new, empty database of `kind`, closed (and, for PostgreSQL, dropped) afterwards.
/// `body` also gets the database, to open more stores on it as other processes would.
func withLedger(
    _ kind: StoreKind, clock: TestClock = TestClock(), writesWebhookEvents: Bool = false,
    _ body: (Ledger, TestDatabase) async throws -> Void
) async throws {
    switch kind {
    case .sqlite:
        try await withTemporaryDirectory { directory in
            try await TestDatabase.use(TestDatabase(kind: kind, location: directory.appendingPathComponent("ledger.sqlite").path), clock: clock, writesWebhookEvents: writesWebhookEvents, body)
        }
    case .postgres:
        try await withPostgresDatabase { url in
            try await TestDatabase.use(TestDatabase(kind: kind, location: url), clock: clock, writesWebhookEvents: writesWebhookEvents, body)
        }
    }
}

/// A receipt purchase as the server would hand it over after verification.
func receiptTransaction(_ id: String, product: String = "com.example.coins100") -> LedgerTransaction {
    LedgerTransaction(
        transactionId: id, originalTransactionId: id, productId: product, bundleId: "com.example.app",
        environment: "Production", purchaseDate: Date(timeIntervalSince1970: 1_690_000_000),
        source: .receipt
    )
}

/// A StoreKit 2 transaction, with the appAccountToken the app set at purchase.
func signedTransaction(_ id: String, appAccountToken: UUID?) -> LedgerTransaction {
    LedgerTransaction(
        transactionId: id, originalTransactionId: id, productId: "com.example.pro", bundleId: "com.example.app",
        environment: "Sandbox", purchaseDate: Date(timeIntervalSince1970: 1_690_000_000),
        expiresDate: Date(timeIntervalSince1970: 1_692_592_000), source: .jws,
        appAccountToken: appAccountToken?.uuidString
    )
}

/// The message of the `storageUnavailable` error `body` throws; nil, with the test failed, when it
/// throws anything else or nothing.
func storageFailure(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        Issue.record("expected LedgerError.storageUnavailable, nothing was thrown")
    } catch LedgerError.storageUnavailable(let message) {
        return message
    } catch {
        Issue.record("expected LedgerError.storageUnavailable, got \(error)")
    }
    return nil
}

/// Waits until `condition` holds, for at most 10 seconds.
func until(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
}

/// A flag set once, read from any thread.
final class Flag: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
