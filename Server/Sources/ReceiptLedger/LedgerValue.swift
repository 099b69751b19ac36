/// A value a `LedgerSQL` statement binds or a row answers, whatever the database: the schema has
/// only text and whole numbers (dates are milliseconds), each possibly NULL (`nil` in either case).
package enum LedgerValue: Sendable, Hashable {
    case text(String?)
    case integer(Int64?)
}

/// A statement with its values in placeholder order, its SQL written with `?` placeholders.
package struct LedgerStatement: Sendable, Hashable {
    package let sql: String
    package let values: [LedgerValue]

    package init(sql: String, values: [LedgerValue] = []) {
        self.sql = sql
        self.values = values
    }
}
