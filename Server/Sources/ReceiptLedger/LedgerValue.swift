/// A value a `LedgerSQL` statement binds, before a driver turns it into its own type: the schema has
/// only text and whole numbers (dates are milliseconds), each possibly NULL.
enum LedgerValue: Sendable {
    case text(String?)
    case integer(Int64?)
}

/// A statement with its values in placeholder order.
struct LedgerStatement: Sendable {
    let sql: String
    let values: [LedgerValue]
}
