/// The rule for a user id, in a body or a path: what the ledger stores and the support page shows,
/// so it must be text a person can read back and a database can index.
enum LedgerUserID {
    static let maximumUTF8Count = 256

    /// The id, or why it is refused.
    static func validated(_ text: String) throws(Refusal) -> String {
        guard !text.isEmpty else { throw .invalid(member: "user", "the user id is empty") }
        guard text.utf8.count <= maximumUTF8Count else {
            throw .invalid(member: "user", "the user id has \(text.utf8.count) UTF-8 bytes; at most \(maximumUTF8Count)")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid(member: "user", "the user id holds a control character")
        }
        return text
    }

    /// A `{user}` path component: Hummingbird hands it over still percent-encoded, so `a%20b` is
    /// the user `a b` (and `%2F` a `/`, which a path could not carry otherwise).
    static func fromPath(_ component: String?) throws(Refusal) -> String {
        guard let decoded = component?.removingPercentEncoding else {
            throw .invalid(member: "user", "the user id in the path is not valid percent-encoded UTF-8")
        }
        return try validated(decoded)
    }
}
