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
            // Byte by byte: every statement passes here, and a walk by Character (grapheme
            // breaking) cost more than the rest of building it. `?` never occurs inside a
            // multi-byte UTF-8 sequence.
            var numbered: [UInt8] = []
            numbered.reserveCapacity(sql.utf8.count + 16)
            var number = 0
            for byte in sql.utf8 {
                if byte == UInt8(ascii: "?") {
                    number += 1
                    numbered.append(UInt8(ascii: "$"))
                    numbered.append(contentsOf: String(number).utf8)
                } else {
                    numbered.append(byte)
                }
            }
            return String(decoding: numbered, as: UTF8.self)
        }
    }
}
