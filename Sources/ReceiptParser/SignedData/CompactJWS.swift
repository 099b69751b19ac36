/// A compact JWS (RFC 7515 §7.1) as Apple signs StoreKit 2 data: three base64url parts,
/// `header.payload.signature`, read strictly. Reading judges syntax only; what the header says
/// is judged by ``JWSHeader`` and the trust step.
struct CompactJWS {
    /// The header, a JSON object.
    let header: StrictJSON.Value
    /// The payload's JSON text, as signed.
    let payload: [UInt8]
    /// The payload, a JSON object.
    let payloadValue: StrictJSON.Value
    /// The signature's bytes (64 for ES256).
    let signature: [UInt8]
    /// The bytes the signature covers: the ASCII `header.payload`.
    let signingInput: ArraySlice<UInt8>

    /// Reads a token; whitespace around it is ignored, anything else that is not three strict
    /// base64url parts of JSON objects is ``ReceiptError/Code/malformedToken`` (or the JSON
    /// reader's `invalidJSON` / `duplicateKey`, or `tooLarge`).
    init(_ input: [UInt8]) throws(ReceiptError) {
        guard input.count <= DecodingLimits.maximumTokenSize else {
            throw ReceiptError(.tooLarge, "the token has \(input.count) bytes; at most \(DecodingLimits.maximumTokenSize) are read")
        }
        var start = input.startIndex
        var end = input.endIndex
        while start < end, Base64.isWhitespace(input[start]) { start += 1 }
        while end > start, Base64.isWhitespace(input[end - 1]) { end -= 1 }
        let token = input[start..<end]
        guard let firstDot = token.firstIndex(of: UInt8(ascii: ".")),
              let secondDot = token[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
              !token[(secondDot + 1)...].contains(UInt8(ascii: "."))
        else {
            throw ReceiptError(.malformedToken, "a compact JWS has three parts separated by two dots")
        }
        header = try Self.object(token[start..<firstDot], "header")
        let payload = try Self.part(token[(firstDot + 1)..<secondDot], "payload")
        self.payload = payload
        payloadValue = try Self.object(payload, "payload")
        signature = try Self.part(token[(secondDot + 1)...], "signature")
        signingInput = token[start..<secondDot]
    }

    /// One part's bytes.
    private static func part(_ text: ArraySlice<UInt8>, _ name: String) throws(ReceiptError) -> [UInt8] {
        guard let bytes = JWSBase64.decode(text, .url) else {
            throw ReceiptError(.malformedToken, "the \(name) is not base64url without padding (only A-Z, a-z, 0-9, - and _; no =, +, / or whitespace)")
        }
        return bytes
    }

    private static func object(_ text: ArraySlice<UInt8>, _ name: String) throws(ReceiptError) -> StrictJSON.Value {
        try object(try part(text, name), name)
    }

    /// A part's JSON, which must be UTF-8 text of one object.
    private static func object(_ bytes: [UInt8], _ name: String) throws(ReceiptError) -> StrictJSON.Value {
        guard isUTF8(bytes) else {
            throw ReceiptError(.malformedToken, "the \(name) is not UTF-8 text")
        }
        let value: StrictJSON.Value
        do throws(ReceiptError) {
            value = try StrictJSON.parse(bytes, maximumDepth: DecodingLimits.maximumTokenJSONDepth)
        } catch {
            throw ReceiptError(error.code, "the \(name): \(error.reason)")
        }
        guard case .object = value else {
            throw ReceiptError(.malformedToken, "the \(name) is JSON but not an object")
        }
        return value
    }

    /// Whether `bytes` are UTF-8, without making a String of them: Apple's headers and payloads
    /// are ASCII, checked eight bytes at a time; anything else is validated by the standard library.
    static func isUTF8(_ bytes: [UInt8]) -> Bool {
        let ascii = bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset + 8 <= raw.count {
                if raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
                offset += 8
            }
            while offset < raw.count {
                if raw[offset] & 0x80 != 0 { return false }
                offset += 1
            }
            return true
        }
        return ascii || String(validating: bytes, as: UTF8.self) != nil
    }
}
