/// A value a `LedgerSQL` statement binds or a row answers, whatever the database: the schema has
/// text, whole numbers (dates are milliseconds) and bytes (`BYTEA`: a snapshot's JSON, compared
/// byte for byte by both databases), each possibly NULL (`nil` in any case).
package enum LedgerValue: Sendable, Hashable {
    case text(String?)
    case integer(Int64?)
    case bytes([UInt8]?)
}

/// A statement with its values in placeholder order, its SQL written with `?` placeholders.
package struct LedgerStatement: Sendable, Hashable {
    package let sql: String
    package let values: [LedgerValue]

    package init(sql: String, values: [LedgerValue] = []) {
        self.sql = sql
        self.values = values
    }

    /// Its values, once none is text holding U+0000: SQLite would store such text and PostgreSQL
    /// refuse it, so the ledger refuses it before either database sees it, the same on both.
    func storableValues() throws(LedgerError) -> [LedgerValue] {
        for case .text(let text?) in values where text.utf8.contains(0) { throw .unstorableText }
        return values
    }
}
