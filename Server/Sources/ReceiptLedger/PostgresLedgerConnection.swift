import Dispatch
import Foundation
import PostgresNIO

/// A PostgreSQL connection as a `LedgerConnection`. The ledger's operations are synchronous (they
/// are written once, for SQLite's synchronous API too), so they run on a thread of the store's own
/// pool, never on an event loop or the concurrency pool; each statement is waited for no later
/// than the operation's deadline, so a silent server frees the thread when the caller is answered.
struct PostgresLedgerConnection: LedgerConnection {
    let connection: PostgresConnection
    /// When the operation's caller is answered `DeadlineExceeded` anyway.
    let deadline: DispatchTime
    let timeout: Duration

    /// The first failure of a statement sent without waiting for its answer.
    let unanswered = UnansweredFailure()

    var placeholders: LedgerPlaceholders { .numbered }

    func execute(_ sql: String, _ values: [LedgerValue]) throws -> LedgerAnswer {
        let answer = Result { try wait(for: query(sql, values)) }
        // PostgreSQL answers a connection's statements in order: every one sent before this one
        // has been answered, and a failure among them is the cause of anything after it.
        try unanswered.check()
        let result = try answer.get()
        return LedgerAnswer(rows: try result.rows.map(Self.row), changedRows: result.metadata.rows ?? 0)
    }

    /// Pipelined: the statement goes out at once, and its failure is thrown by the next
    /// statement waited for. A COMMIT after a failed statement only rolls back, so the COMMIT
    /// throws it too.
    func send(_ sql: String, _ values: [LedgerValue]) throws {
        query(sql, values).whenFailure { [unanswered] in unanswered.record($0) }
    }

    /// `work` in a transaction of this connection: committed when it returns; when it throws, a
    /// ROLLBACK is sent without waiting for it (the connection runs it before whatever it is given
    /// next, so a late answer cannot leave the transaction open for the pool's next user). BEGIN
    /// is not waited for either: the first statement waited for answers for it.
    func inTransaction<T>(_ work: (any LedgerConnection) throws -> T) throws -> T {
        try send("BEGIN", [])
        do {
            let result = try work(self)
            try run("COMMIT")
            return result
        } catch {
            _ = query("ROLLBACK", [])
            throw error
        }
    }

    private func query(_ sql: String, _ values: [LedgerValue]) -> EventLoopFuture<PostgresQueryResult> {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .text(let text?): bindings.append(text)
            case .integer(let integer?): bindings.append(integer)
            case .bytes(let bytes?): bindings.append(ByteBuffer(bytes: bytes))
            case .text(nil), .integer(nil), .bytes(nil): bindings.appendNull()
            }
        }
        return connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: PostgresLedgerDriver.logger)
    }

    private func wait<Value: Sendable>(for future: EventLoopFuture<Value>) throws -> Value {
        let answered = DispatchSemaphore(value: 0)
        let answer = Answer<Value>()
        future.whenComplete { result in
            answer.set(result)
            answered.signal()
        }
        guard answered.wait(timeout: deadline) == .success, let result = answer.get() else {
            throw DeadlineExceeded(limit: timeout)
        }
        return try result.get()
    }

    private static func row(_ row: PostgresRow) throws -> LedgerRow {
        LedgerRow(try row.map { cell in
            guard cell.bytes != nil else { return .text(nil) }
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .bytea: return .bytes(Array(try cell.decode(ByteBuffer.self).readableBytesView))
            default: return .text(try cell.decode(String.self))
            }
        })
    }
}

/// The first failure among statements sent without waiting, recorded on the event loop and
/// thrown on the operation's thread.
final class UnansweredFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var failure: (any Error)?

    func record(_ error: any Error) { lock.withLock { if failure == nil { failure = error } } }

    func check() throws {
        if let failure = lock.withLock({ failure }) { throw failure }
    }
}

/// A statement's answer, handed from the event loop to the waiting thread.
private final class Answer<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Value, any Error>?

    func set(_ result: Result<Value, any Error>) { lock.withLock { self.result = result } }
    func get() -> Result<Value, any Error>? { lock.withLock { result } }
}
