/// A verifyReceipt request body, `{"receipt-data": "<base64>", "password": "...",
/// "exclude-old-transactions": true}`, read with ``StrictJSON``.
///
/// Every reader of request bodies (``ReceiptInput``, receipt-server's routes) goes through
/// ``parse(_:)``, so they cannot disagree about which receipt a body holds.
///
/// Members are typed strictly, unlike Apple's service: `receipt-data` must be a string,
/// `password` a string or null, `exclude-old-transactions` `true`, `false` or null. A member of
/// another type (such as `"exclude-old-transactions": "true"`) makes the body
/// ``ReceiptError/Code/invalidJSON``: guessing what the client meant could answer with other
/// transactions than it asked for. Unknown members are ignored.
public struct VerifyReceiptRequest: Sendable, Equatable {
    /// The receipt's PKCS #7 bytes, decoded from the base64 of `receipt-data`.
    public var receiptData: [UInt8]
    /// `password`, the app's shared secret. A local verifier does not need it.
    public var password: String?
    /// `exclude-old-transactions`: only the latest period of each auto-renewable subscription.
    public var excludeOldTransactions: Bool

    /// Creates a request.
    public init(receiptData: [UInt8], password: String? = nil, excludeOldTransactions: Bool = false) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    /// Reads a request body.
    ///
    /// Throws what ``StrictJSON/parse(_:)`` throws (``ReceiptError/Code/duplicateKey``,
    /// ``ReceiptError/Code/invalidJSON``, ``ReceiptError/Code/tooLarge``);
    /// ``ReceiptError/Code/invalidJSON`` for a body that is not an object, lacks
    /// `receipt-data` or has a member of the wrong type; ``ReceiptError/Code/notBase64`` when
    /// `receipt-data` is not base64; ``ReceiptError/Code/legacyTransactionReceipt`` for an iOS 6
    /// transaction receipt; and ``ReceiptError/Code/notPKCS7`` when it decodes to anything else
    /// that cannot be a receipt.
    public static func parse(_ body: [UInt8]) throws(ReceiptError) -> VerifyReceiptRequest {
        let request = try StrictJSON.parse(body)
        guard case .object = request else {
            throw ReceiptError(.invalidJSON, "the request body is not a JSON object")
        }
        return try read(request)
    }

    private static func read(_ request: StrictJSON.Value) throws(ReceiptError) -> VerifyReceiptRequest {
        guard let member = request["receipt-data"] else {
            throw ReceiptError(.invalidJSON, "the request body has no \"receipt-data\" member")
        }
        guard case .string(let text) = member else {
            throw ReceiptError(.invalidJSON, "\"receipt-data\" is not a string")
        }
        var password: String?
        switch request["password"] {
        case .string(let value)?: password = value
        case .null?, nil: password = nil
        default: throw ReceiptError(.invalidJSON, "\"password\" is not a string")
        }
        var excludeOldTransactions = false
        switch request["exclude-old-transactions"] {
        case .bool(let value)?: excludeOldTransactions = value
        case .null?, nil: excludeOldTransactions = false
        default: throw ReceiptError(.invalidJSON, "\"exclude-old-transactions\" is not true or false")
        }
        // JSON writers may escape "/" as "\/"; the reader has already undone that.
        guard let decoded = Base64.decode(text.utf8) else {
            throw ReceiptError(.notBase64, "\"receipt-data\" is not base64")
        }
        guard decoded.first == ASN1Tag.sequence else {
            if ReceiptInput.isLegacyTransactionReceipt(decoded) { throw ReceiptInput.legacyError }
            throw ReceiptError(.notPKCS7, "\"receipt-data\" decodes to \(decoded.count) bytes that are not PKCS #7")
        }
        return VerifyReceiptRequest(receiptData: decoded, password: password, excludeOldTransactions: excludeOldTransactions)
    }
}
