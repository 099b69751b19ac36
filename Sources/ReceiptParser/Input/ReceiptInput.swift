/// Turns what a caller has (a receipt file, base64 from a log, a verifyReceipt request body)
/// into the receipt's binary PKCS #7 bytes.
public enum ReceiptInput {
    /// Recognises raw DER/BER, base64 (wrapped or not) and `{"receipt-data": "..."}` bodies
    /// (read by ``VerifyReceiptRequest/parse(_:)``, so a body with two `receipt-data` members
    /// is refused with ``ReceiptError/Code/duplicateKey``, and malformed JSON with
    /// ``ReceiptError/Code/invalidJSON``).
    ///
    /// Throws ``ReceiptError/Code/legacyTransactionReceipt`` for an iOS 6 style transaction
    /// receipt, ``ReceiptError/Code/notBase64`` for text that is not base64, and
    /// ``ReceiptError/Code/notPKCS7`` for anything else that cannot be a receipt.
    public static func receiptBytes(from input: [UInt8]) throws(ReceiptError) -> [UInt8] {
        // Base64 is 4/3 the size, plus line breaks.
        guard input.count <= DecodingLimits.maximumInputSize * 3 / 2 else {
            throw ReceiptError(.tooLarge, "\(input.count) bytes of input exceed the limit")
        }
        if input.first == ASN1Tag.sequence { return input }
        guard let first = input.firstIndex(where: { !Base64.isWhitespace($0) }) else {
            throw ReceiptError(.notPKCS7, "the input is empty")
        }
        if input[first] == UInt8(ascii: "{") {
            do {
                return try VerifyReceiptRequest.parse(input).receiptData
            } catch where error.code == .invalidJSON && isLegacyTransactionReceipt(input) {
                // The legacy text dictionary also starts with "{" and is not JSON; looked for
                // only then, not in every request body.
                throw legacyError
            }
        }
        guard input.allSatisfy({ Base64.isWhitespace($0) || (0x20..<0x7F).contains($0) }) else {
            throw ReceiptError(.notPKCS7, "binary input that is not PKCS #7 (first byte 0x\(String(input[0], radix: 16)))")
        }
        guard let decoded = Base64.decode(input[first...]) else {
            throw ReceiptError(.notBase64, "text input that is not base64")
        }
        if decoded.first == ASN1Tag.sequence { return decoded }
        if isLegacyTransactionReceipt(decoded) { throw legacyError }
        throw ReceiptError(.notPKCS7, "the base64 decodes to \(decoded.count) bytes that are not PKCS #7")
    }

    static let legacyError = ReceiptError(
        .legacyTransactionReceipt,
        "an iOS 6 style transaction receipt (a text dictionary with \"signature\" and \"purchase-info\"), not an app receipt; only Apple's verifyReceipt service could check it"
    )

    /// iOS 6 transaction receipts are NeXTSTEP-style text: `{ "signature" = "..."; "purchase-info" = "..."; }`.
    static func isLegacyTransactionReceipt(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.firstIndex(where: { !Base64.isWhitespace($0) }), bytes[first] == UInt8(ascii: "{") else {
            return false
        }
        return ByteSearch.contains(Array("\"purchase-info\"".utf8), in: bytes) && ByteSearch.contains(Array("\"signature\"".utf8), in: bytes)
    }
}
