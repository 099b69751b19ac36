/// One row a statement answered, its columns in the statement's order, as every driver hands it over.
package struct LedgerRow: Sendable, Hashable {
    package let values: [LedgerValue]

    package init(_ values: [LedgerValue]) { self.values = values }

    /// A column that is not what the ledger's own SQL selects there: a schema changed under the store.
    struct UnexpectedColumn: Error, CustomStringConvertible {
        let column: Int
        let expected: String
        var description: String { "column \(column) of a ledger row is not \(expected)" }
    }

    /// The text in `column`, nil when NULL.
    func text(_ column: Int) throws -> String? {
        switch value(column) {
        case .text(let text)?: return text
        case .integer(nil)?: return nil
        default: throw UnexpectedColumn(column: column, expected: "text")
        }
    }

    /// The whole number in `column`, nil when NULL.
    func integer(_ column: Int) throws -> Int64? {
        switch value(column) {
        case .integer(let integer)?: return integer
        case .text(nil)?: return nil
        default: throw UnexpectedColumn(column: column, expected: "a whole number")
        }
    }

    /// The bytes in a NOT NULL column.
    func requiredBytes(_ column: Int) throws -> [UInt8] {
        guard case .bytes(let bytes?)? = value(column) else { throw UnexpectedColumn(column: column, expected: "non-NULL bytes") }
        return bytes
    }

    /// The text in a NOT NULL column.
    func requiredText(_ column: Int) throws -> String {
        guard let text = try text(column) else { throw UnexpectedColumn(column: column, expected: "non-NULL text") }
        return text
    }

    /// The whole number in a NOT NULL column.
    func requiredInteger(_ column: Int) throws -> Int64 {
        guard let integer = try integer(column) else { throw UnexpectedColumn(column: column, expected: "a non-NULL whole number") }
        return integer
    }

    private func value(_ column: Int) -> LedgerValue? {
        values.indices.contains(column) ? values[column] : nil
    }
}
