/// How a database spells a statement's placeholders. `LedgerSQL` is written with `?` (and no `?`
/// anywhere else), and each driver's connection renders it in its own syntax.
package enum LedgerPlaceholders: Sendable {
    /// `?`, as SQLite takes them.
    case questionMarks
    /// `$1, $2, ...`, as PostgreSQL wants them.
    case numbered

    /// `sql`, written with `?` placeholders, in this syntax.
    package func render(_ sql: String) -> String {
        switch self {
        case .questionMarks:
            return sql
        case .numbered:
            var number = 0
            var numbered = ""
            for character in sql {
                if character == "?" {
                    number += 1
                    numbered += "$\(number)"
                } else {
                    numbered.append(character)
                }
            }
            return numbered
        }
    }
}
