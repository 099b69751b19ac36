import Foundation
import Testing
import ReceiptLedger

/// A clock the tests move by hand, so dates in the ledger are exact.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = start }

    var now: Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// A new folder under the system's temporary directory, removed when the test is done.
func withTemporaryDirectory(_ body: (URL) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("ledger-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(directory)
}

/// A ledger over a new, empty database of `kind`, closed (and, for PostgreSQL, dropped) afterwards.
/// `body` also gets the database, to open more stores on it as other processes would.
func withLedger(
    _ kind: StoreKind, clock: TestClock = TestClock(), _ body: (Ledger, TestDatabase) async throws -> Void
) async throws {
    switch kind {
    case .sqlite:
        try await withTemporaryDirectory { directory in
            try await TestDatabase.use(TestDatabase(kind: kind, location: directory.appendingPathComponent("ledger.sqlite").path), clock: clock, body)
        }
    case .postgres:
        try await withPostgresDatabase { url in
            try await TestDatabase.use(TestDatabase(kind: kind, location: url), clock: clock, body)
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
