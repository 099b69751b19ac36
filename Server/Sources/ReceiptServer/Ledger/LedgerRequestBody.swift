import ReceiptParser

/// The JSON object of a ledger request's body: strict (duplicate keys refused, as on every
/// route) and closed, so that a misspelt member is refused by name instead of being ignored.
enum LedgerRequestBody {
    /// The body's object; `invalidRequest` naming the first member not in `members`.
    static func object(_ body: [UInt8], members: Set<String>, expected: String) throws(Refusal) -> StrictJSON.Value {
        let value: StrictJSON.Value
        do {
            value = try StrictJSON.parse(body)
        } catch {
            throw Refusal(.badRequest, code: error.code.name, reason: error.reason)
        }
        guard case .object(let object) = value else { throw .invalid(member: nil, "the body is not a JSON object") }
        if let unknown = object.first(where: { !members.contains($0.key) }) {
            throw .invalid(member: unknown.key, "unknown member; \(expected)")
        }
        return value
    }
}
