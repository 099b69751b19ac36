import Foundation
@testable import ReceiptLedger

/// The statements a store's operations hand its connection, in order, with their values.
final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(sql: String, values: [LedgerValue])] = []

    func append(_ sql: String, _ values: [LedgerValue]) { lock.withLock { entries.append((sql, values)) } }

    var statements: [String] { lock.withLock { entries.map(\.sql) } }

    /// Every value bound, in the order run.
    var values: [LedgerValue] { lock.withLock { entries.flatMap(\.values) } }

    /// The `position`th value of every run of `sql`, in the order run.
    func values(of sql: String, at position: Int) -> [LedgerValue] {
        lock.withLock { entries.filter { $0.sql == sql }.map { $0.values[position] } }
    }
}

/// Another store's driver, with every statement its operations run written to `log` on the way,
/// and `afterStatement` called with each once it has run (where a test stops a transaction).
struct RecordingDriver: LedgerDriver {
    let inner: any LedgerDriver
    let log: StatementLog
    var afterStatement: @Sendable (String) -> Void = { _ in }

    var migrationLock: LedgerStatement? { inner.migrationLock }

    func transactionLock(_ key: LedgerLockKey) -> LedgerStatement? { inner.transactionLock(key) }

    var lockingSkippingLockedRows: String { inner.lockingSkippingLockedRows }

    func write<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T {
        try await inner.write { [log, afterStatement] connection in try work(RecordingConnection(inner: connection, log: log, afterStatement: afterStatement)) }
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (any LedgerConnection) throws -> T) async throws -> T {
        try await inner.read { [log, afterStatement] connection in try work(RecordingConnection(inner: connection, log: log, afterStatement: afterStatement)) }
    }

    func describe(_ failure: any Error) -> String { inner.describe(failure) }
}

private struct RecordingConnection: LedgerConnection {
    let inner: any LedgerConnection
    let log: StatementLog
    let afterStatement: @Sendable (String) -> Void

    var placeholders: LedgerPlaceholders { inner.placeholders }

    func execute(_ sql: String, _ values: [LedgerValue]) throws -> LedgerAnswer {
        log.append(sql, values)
        let answer = try inner.execute(sql, values)
        afterStatement(sql)
        return answer
    }
}
