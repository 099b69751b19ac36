import ReceiptParser

/// A `POST /v1/credits` body: `{"user": ID, "receipt-data": BASE64}` or
/// `{"user": ID, "signedTransaction": JWS}`, with an optional `"transactionId"`. Strict: duplicate
/// keys and unknown members are refused, so a misspelt `transactionID` cannot silently credit
/// every transaction of the input.
struct CreditRequest: Sendable {
    /// What the client sent to be verified.
    enum Input: Sendable {
        /// The body itself: `receipt-data` is read by /verifyReceipt's own request reader.
        case receipt
        /// One StoreKit 2 transaction token.
        case signedTransaction(String)
    }

    static let members: Set<String> = ["user", "receipt-data", "signedTransaction", "transactionId"]

    let user: String
    let input: Input
    let transactionId: String?

    init(body: [UInt8]) throws(LedgerRequestError) {
        let value = try LedgerRequestBody.object(body, members: Self.members,
                                                 expected: "a credit names user, receipt-data or signedTransaction, and optionally transactionId")
        user = try LedgerUserID.validated(try Self.string("user", in: value) ?? "")
        transactionId = try Self.string("transactionId", in: value)
        if transactionId?.isEmpty == true { throw .invalid(member: "transactionId", "the transaction id is empty") }
        switch (value["receipt-data"], try Self.string("signedTransaction", in: value)) {
        case (_?, _?), (nil, nil):
            throw .invalid(member: nil, "a credit names exactly one of receipt-data and signedTransaction")
        case (_?, nil):
            input = .receipt
        case (nil, let token?):
            input = .signedTransaction(token)
        }
    }

    private static func string(_ member: String, in value: StrictJSON.Value) throws(LedgerRequestError) -> String? {
        switch value[member] {
        case nil: return nil
        case .string(let text)?: return text
        default: throw .invalid(member: member, "not a string")
        }
    }
}
