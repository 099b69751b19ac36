import Foundation
import GRDB
import GRDBSQLite

/// GRDB's connection as a `LedgerConnection`, inside one of `SQLiteLedgerDriver`'s transactions.
///
/// GRDB prepares and caches the statements and runs the transactions; the statements themselves
/// are bound, stepped and read through SQLite's C API. GRDB's own path builds its arguments from
/// existential values and copies every row into a `Row` first: together an eighth of the
/// writer's time during notification ingest. The ledger needs none of what that path adds
/// (transaction observers, the schema cache: `clearSchemaCache` after a schema change).
struct SQLiteLedgerConnection: LedgerConnection {
    let db: Database

    var placeholders: LedgerPlaceholders { .questionMarks }

    func execute(_ sql: String, _ values: [LedgerValue]) throws -> LedgerAnswer {
        // Every statement runs inside the driver's transactions: none left means SQLite rolled it
        // back itself (a full disk, an I/O error), and a statement run now would commit alone.
        guard sqlite3_get_autocommit(db.sqliteConnection) == 0 else {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "the transaction was rolled back", sql: sql)
        }
        // Cached: the ledger runs the same few statements over and over. Kept alive to the end,
        // as a schema change empties GRDB's cache.
        let statement = try db.cachedStatement(sql: sql)
        return try withExtendedLifetime(statement) { try run(statement.sqliteStatement, sql, values) }
    }

    private func run(_ handle: OpaquePointer, _ sql: String, _ values: [LedgerValue]) throws -> LedgerAnswer {
        sqlite3_reset(handle)  // every parameter is bound below: no need to clear the last ones
        guard Int(sqlite3_bind_parameter_count(handle)) == values.count else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(values.count) values for \(sqlite3_bind_parameter_count(handle)) parameters", sql: sql)
        }
        for (index, value) in zip(Int32(1)..., values) {
            let code = Self.bind(value, at: index, to: handle)
            guard code == SQLITE_OK else { throw failure(code, sql) }
        }
        defer {
            // Bytes bound are SQLite's own copies; the statement holds nothing of the caller's.
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        var rows: [LedgerRow] = []
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: rows.append(try Self.row(handle))
            case SQLITE_DONE:
                if Self.changesSchema(sql) { db.clearSchemaCache() }
                return LedgerAnswer(rows: rows, changedRows: sqlite3_column_count(handle) > 0 ? 0 : db.changesCount)
            case let code: throw failure(code, sql)
            }
        }
    }

    private func failure(_ code: Int32, _ sql: String) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
    }

    /// CREATE, DROP or ALTER, by its first word (the ledger's migrations, written in capitals).
    private static func changesSchema(_ sql: String) -> Bool {
        let word = sql.utf8.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") }.prefix { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        return ["CREATE", "DROP", "ALTER"].contains { word.elementsEqual($0.utf8) }
    }

    /// Text and bytes are copied by SQLite (`SQLITE_TRANSIENT`).
    private static func bind(_ value: LedgerValue, at index: Int32, to handle: OpaquePointer) -> Int32 {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        switch value {
        case .text(nil), .integer(nil), .bytes(nil): return sqlite3_bind_null(handle, index)
        case .integer(let integer?): return sqlite3_bind_int64(handle, index, integer)
        case .text(let text?):
            // An empty buffer may have no address, which SQLite would take for NULL.
            guard !text.isEmpty else { return sqlite3_bind_text(handle, index, "", 0, transient) }
            var text = text
            return text.withUTF8 { sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), transient) }
        case .bytes(let bytes?):
            guard !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient) }
        }
    }

    private static func row(_ handle: OpaquePointer) throws -> LedgerRow {
        LedgerRow(try (0..<sqlite3_column_count(handle)).map { column in
            switch sqlite3_column_type(handle, column) {
            case SQLITE_NULL: return .text(nil)
            case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
            case SQLITE_TEXT:
                let text = sqlite3_column_text(handle, column)
                let count = Int(sqlite3_column_bytes(handle, column))
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let blob = sqlite3_column_blob(handle, column)
                let count = Int(sqlite3_column_bytes(handle, column))
                return .bytes(count == 0 ? [] : [UInt8](UnsafeRawBufferPointer(start: blob, count: count)))
            default: throw LedgerRow.UnexpectedColumn(column: Int(column), expected: "text, bytes or a whole number")
            }
        })
    }
}
