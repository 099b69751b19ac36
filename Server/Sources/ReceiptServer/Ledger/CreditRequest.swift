import ReceiptParser

/// A `POST /v1/credits` body: `{"user": ID, "receipt-data": BASE64}` or
/// `{"user": ID, "signedTransaction": JWS}`, with an optional `"transactionId"`. Strict: duplicate
/// keys and unknown members are refused, so a misspelt `transactionID` cannot silently credit
/// every transaction of the input. The body is read once, here; the route verifies what it names.
struct CreditRequest: Sendable {
    /// What the client sent to be verified.
    enum Input: Sendable {
        /// A receipt: `receipt-data`, the base64 of its PKCS #7 bytes, decoded by the verifier as
        /// /v1/receipts decodes base64 bodies.
        case receipt(String)
        /// One StoreKit 2 transaction token.
        case signedTransaction(String)
    }

    static let members: Set<String> = ["user", "receipt-data", "signedTransaction", "transactionId"]

    let user: String
    let input: Input
    let transactionId: String?

    init(body: [UInt8]) throws(Refusal) {
        let value = try LedgerRequestBody.object(body, members: Self.members,
                                                 expected: "a credit names user, receipt-data or signedTransaction, and optionally transactionId")
        user = try LedgerIdentifier.validated(try Self.string("user", in: value) ?? "")
        transactionId = try Self.string("transactionId", in: value)
        if transactionId?.isEmpty == true { throw .invalid(member: "transactionId", "the transaction id is empty") }
        switch (try Self.string("receipt-data", in: value), try Self.string("signedTransaction", in: value)) {
        case (_?, _?), (nil, nil):
            throw .invalid(member: nil, "a credit names exactly one of receipt-data and signedTransaction")
        case (let receipt?, nil):
            // Base64 never starts with "{": refused here, so that the verifier's input reader
            // cannot take a JSON body inside the string for a request of its own. It reads JSON only
            // when "{" is the first byte past its blanks (space, tab, CR, LF); a "{" further on is
            // refused by the verifier like any other text that is not base64 (searching the whole
            // receipt for "{" through Foundation was 15 % of a credit's CPU).
            guard receipt.utf8.first(where: { $0 > 0x20 }) != UInt8(ascii: "{") else {
                throw Refusal(.unprocessableContent, code: ReceiptError.Code.notBase64.name, reason: "\"receipt-data\" is not base64",
                              member: "receipt-data", receiptStatus: VerifyReceiptResponse.Status.malformed.rawValue, verdict: .unreadable)
            }
            input = .receipt(receipt)
        case (nil, let token?):
            input = .signedTransaction(token)
        }
    }

    private static func string(_ member: String, in value: StrictJSON.Value) throws(Refusal) -> String? {
        switch value[member] {
        case nil: return nil
        case .string(let text)?: return text
        default: throw .invalid(member: member, "not a string")
        }
    }
}
