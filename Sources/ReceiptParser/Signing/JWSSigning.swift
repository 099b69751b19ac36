/// Makes compact JWS signed with ES256 (RFC 7515, RFC 7518 §3.4): the tokens a server sends
/// Apple (the App Store Server API's bearer token) and gives StoreKit (signed offers).
///
/// The caller writes the header and payload JSON (``JSONWriter``); they are signed as given, so
/// what is signed is exactly what was written.
public enum JWSSigning {
    /// `base64url(header) . base64url(payload) . base64url(r ‖ s)`.
    public static func sign(header: [UInt8], payload: [UInt8], with key: ES256SigningKey) -> String {
        let signingInput = JWSBase64.encode(header, .url) + "." + JWSBase64.encode(payload, .url)
        return signingInput + "." + JWSBase64.encode(key.signature(of: Array(signingInput.utf8)), .url)
    }

    /// Base64url without padding, as JWS parts and JWT claims use it.
    public static func base64URL(_ bytes: some Collection<UInt8>) -> String { JWSBase64.encode(bytes, .url) }

    /// Standard base64, padded: Apple's promotional-offer signature is sent this way.
    public static func base64(_ bytes: some Collection<UInt8>) -> String { JWSBase64.encode(bytes, .standard) }
}
