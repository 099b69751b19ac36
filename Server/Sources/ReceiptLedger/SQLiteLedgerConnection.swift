import Foundation
import GRDB

/// GRDB's connection as a `LedgerConnection`, inside one of `SQLiteLedgerDriver`'s transactions.
struct SQLiteLedgerConnection: LedgerConnection {
    let db: Database

    var placeholders: LedgerPlaceholders { .questionMarks }

    func execute(_ sql: String, _ values: [LedgerValue]) throws -> LedgerAnswer {
        // Cached: the ledger runs the same few statements over and over.
        let statement = try db.cachedStatement(sql: sql)
        let arguments = StatementArguments(values.map(\.databaseValue))
        guard statement.columnCount > 0 else {
            try statement.execute(arguments: arguments)
            return LedgerAnswer(rows: [], changedRows: db.changesCount)
        }
        return LedgerAnswer(rows: try Row.fetchAll(statement, arguments: arguments).map(Self.row), changedRows: 0)
    }

    private static func row(_ row: Row) throws -> LedgerRow {
        LedgerRow(try row.databaseValues.enumerated().map { column, value in
            switch value.storage {
            case .null: return .text(nil)
            case .int64(let integer): return .integer(integer)
            case .string(let text): return .text(text)
            case .blob(let data): return .bytes([UInt8](data))
            case .double: throw LedgerRow.UnexpectedColumn(column: column, expected: "text, bytes or a whole number")
            }
        })
    }
}

extension LedgerValue {
    fileprivate var databaseValue: (any DatabaseValueConvertible)? {
        switch self {
        case .text(let text): text
        case .integer(let integer): integer
        case .bytes(let bytes): bytes.map { Data($0) }
        }
    }
}
