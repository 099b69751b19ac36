#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A compact JWS (RFC 7515 §7.1) as Apple signs StoreKit 2 data: three base64url parts,
/// `header.payload.signature`, read strictly. Reading judges syntax only; what the header says
/// is judged by ``JWSHeader`` and the trust step.
struct CompactJWS {
    /// The header: its JSON object, or, when its text is one a ``JWSHeaderCache`` remembers,
    /// the header read from it before.
    enum Header {
        case json(StrictJSON.Value)
        case known(JWSHeader)
    }

    let header: Header
    /// The header's base64url text, as signed.
    let headerSegment: ArraySlice<UInt8>
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
    ///
    /// - Parameter knownHeaders: headers already read; one whose text is there is not read again.
    init(_ input: [UInt8], knownHeaders: JWSHeaderCache? = nil) throws(ReceiptError) {
        guard input.count <= DecodingLimits.maximumTokenSize else {
            throw ReceiptError(.tooLarge, "the token has \(input.count) bytes; at most \(DecodingLimits.maximumTokenSize) are read")
        }
        var start = input.startIndex
        var end = input.endIndex
        while start < end, Base64.isWhitespace(input[start]) { start += 1 }
        while end > start, Base64.isWhitespace(input[end - 1]) { end -= 1 }
        let token = input[start..<end]
        guard let firstDot = Self.firstDot(in: token),
              let secondDot = Self.firstDot(in: token[(firstDot + 1)...]),
              Self.firstDot(in: token[(secondDot + 1)...]) == nil
        else {
            throw ReceiptError(.malformedToken, "a compact JWS has three parts separated by two dots")
        }
        headerSegment = token[start..<firstDot]
        if let known = knownHeaders?.header(for: headerSegment) {
            header = .known(known)
        } else {
            header = .json(try Self.object(headerSegment, "header"))
        }
        let payload = try Self.part(token[(firstDot + 1)..<secondDot], "payload")
        self.payload = payload
        payloadValue = try Self.object(payload, "payload", knownKeys: .storeKitMembers)
        signature = try Self.part(token[(secondDot + 1)...], "signature")
        signingInput = token[start..<secondDot]
    }

    /// The header read: from its JSON, or as remembered.
    func readHeader() throws(ReceiptError) -> JWSHeader {
        switch header {
        case .json(let value): try JWSHeader(value)
        case .known(let header): header
        }
    }

    /// Where the first dot is: memchr, as the header before it is kilobytes of base64url.
    private static func firstDot(in bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let found = memchr(base, Int32(UInt8(ascii: ".")), buffer.count) else { return nil }
            return bytes.startIndex + (UnsafeRawPointer(found) - UnsafeRawPointer(base))
        }
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
    private static func object(_ bytes: [UInt8], _ name: String, knownKeys: StrictJSON.KnownKeys? = nil) throws(ReceiptError) -> StrictJSON.Value {
        guard isUTF8(bytes) else {
            throw ReceiptError(.malformedToken, "the \(name) is not UTF-8 text")
        }
        let value: StrictJSON.Value
        do throws(ReceiptError) {
            value = try StrictJSON.parse(bytes, maximumDepth: DecodingLimits.maximumTokenJSONDepth, knownKeys: knownKeys)
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
        // Decoding repairs what is not UTF-8, so the bytes come back unchanged only when they are
        // (`String(validating:)` needs macOS 15).
        return ascii || String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes)
    }
}
