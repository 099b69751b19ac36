/// The rule for an identifier a ledger request names (a user id, an original transaction id), in a
/// body, a path or a query: what the ledger stores and the support page shows, so it must be text
/// a person can read back and a database can index.
enum LedgerIdentifier {
    static let maximumUTF8Count = 256

    /// The identifier, or why `member` is refused.
    static func validated(_ text: String, member: String = "user") throws(Refusal) -> String {
        guard !text.isEmpty else { throw .invalid(member: member, "the \(member) is empty") }
        guard text.utf8.count <= maximumUTF8Count else {
            throw .invalid(member: member, "the \(member) has \(text.utf8.count) UTF-8 bytes; at most \(maximumUTF8Count)")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid(member: member, "the \(member) holds a control character")
        }
        return text
    }

    /// A path component (`{user}`, `{originalTransactionId}`): Hummingbird hands it over still
    /// percent-encoded, so `a%20b` is `a b` (and `%2F` a `/`, which a path could not carry otherwise).
    static func fromPath(_ component: String?, member: String = "user") throws(Refusal) -> String {
        // Foundation's decoding goes through CoreFoundation's bridge: skipped when nothing is encoded.
        guard let component,
              let decoded = component.utf8.contains(UInt8(ascii: "%")) ? component.removingPercentEncoding : component else {
            throw .invalid(member: member, "the \(member) in the path is not valid percent-encoded UTF-8")
        }
        return try validated(decoded, member: member)
    }
}
