/// The shared secret every ledger route requires (`Authorization: Bearer TOKEN`), from
/// `--ledger-token` or `RECEIPT_SERVER_LEDGER_TOKEN`.
public struct LedgerToken: Sendable {
    /// The fewest characters a token may have: shorter ones can be guessed.
    public static let minimumLength = 16

    private let bytes: [UInt8]

    /// Refuses a token shorter than ``minimumLength`` characters or holding whitespace or control
    /// characters (which a header would mangle), with a message for the command line.
    public init(_ text: String) throws(LedgerOptionError) {
        guard text.count >= Self.minimumLength else {
            throw LedgerOptionError("the ledger token must have at least \(Self.minimumLength) characters, not \(text.count)")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            throw LedgerOptionError("the ledger token must not hold whitespace or control characters")
        }
        bytes = Array(text.utf8)
    }

    /// Whether an `Authorization` header value is `Bearer` and this token (the scheme in any case,
    /// as RFC 6750 allows).
    public func admits(authorization: String?) -> Bool {
        guard let authorization else { return false }
        let scheme = "bearer "
        let utf8 = Array(authorization.utf8)
        guard utf8.count > scheme.utf8.count,
              String(decoding: utf8.prefix(scheme.utf8.count), as: UTF8.self).lowercased() == scheme else { return false }
        return matches(utf8.dropFirst(scheme.utf8.count))
    }

    /// Compares in time that depends only on the presented length, which the client knows: every
    /// byte is compared, the secret's bytes cycled, so neither where a guess goes wrong nor the
    /// secret's length can be timed.
    func matches(_ presented: some Collection<UInt8>) -> Bool {
        var difference: UInt8 = presented.count == bytes.count ? 0 : 1
        for (offset, byte) in presented.enumerated() {
            difference |= byte ^ bytes[offset % bytes.count]
        }
        return difference == 0
    }
}

/// A `--ledger` or `--ledger-token` value the server refuses to start with.
public struct LedgerOptionError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
