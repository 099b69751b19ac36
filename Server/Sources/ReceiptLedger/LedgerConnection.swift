/// A database connection inside one of a `LedgerDriver`'s transactions: the whole of what the
/// ledger's operations need from a database. It is synchronous because SQLite's API is (GRDB runs a
/// transaction as one closure on its writer's thread); the PostgreSQL driver runs the same
/// operations on threads of its own, waiting for each answer within the operation's deadline.
package protocol LedgerConnection {
    /// How this database spells placeholders.
    var placeholders: LedgerPlaceholders { get }

    /// Runs `sql` (already in this database's placeholder syntax) with `values` bound in order.
    /// Answers its rows and how many rows it inserted, updated or deleted.
    func execute(_ sql: String, _ values: [LedgerValue]) throws -> LedgerAnswer

    /// Runs `sql` like ``execute(_:_:)`` when its answer is not needed, possibly without waiting
    /// for it: a failure is then thrown by the next statement that is waited for (at the latest
    /// the transaction's COMMIT), and the transaction is not committed.
    func send(_ sql: String, _ values: [LedgerValue]) throws
}

extension LedgerConnection {
    /// Waits, as a synchronous database does anyway.
    func send(_ sql: String, _ values: [LedgerValue]) throws {
        _ = try execute(sql, values)
    }
}

/// What a statement answered: its rows, and how many rows it changed.
package struct LedgerAnswer: Sendable {
    package var rows: [LedgerRow]
    package var changedRows: Int

    package init(rows: [LedgerRow], changedRows: Int) {
        self.rows = rows
        self.changedRows = changedRows
    }
}

extension LedgerConnection {
    /// Runs one `LedgerSQL` statement, its `?` placeholders rendered for this database; answers
    /// how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: LedgerValue...) throws -> Int {
        try run(LedgerStatement(sql: sql, values: values))
    }

    @discardableResult
    func run(_ statement: LedgerStatement) throws -> Int {
        try execute(placeholders.render(statement.sql), statement.storableValues()).changedRows
    }

    /// Runs one `LedgerSQL` statement whose answer is not needed (``send(_:_:)``).
    func send(_ statement: LedgerStatement) throws {
        try send(placeholders.render(statement.sql), statement.storableValues())
    }

    /// The rows of one `LedgerSQL` query.
    func rows(_ sql: String, _ values: LedgerValue...) throws -> [LedgerRow] {
        try rows(LedgerStatement(sql: sql, values: values))
    }

    func rows(_ statement: LedgerStatement) throws -> [LedgerRow] {
        try execute(placeholders.render(statement.sql), statement.storableValues()).rows
    }
}
