#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The signatures Apple asks a server to make for StoreKit, made as Apple's
/// app-store-server-library makes them: the same signed text or payload for the same inputs,
/// nonce and time (a test holds this against its Python package).
///
/// Time and nonce are inputs: a caller passes the instant and a fresh UUID for each signature.
public struct OfferSigner: Sendable {
    /// The In-App Purchase key and the app.
    public let credentials: AppStoreCredentials

    public init(_ credentials: AppStoreCredentials) {
        self.credentials = credentials
    }

    private var key: ES256SigningKey { credentials.key }
    public var keyID: String { credentials.keyID }
    private var issuerID: String { credentials.issuerID }
    private var bundleID: String { credentials.bundleID }

    /// A promotional offer signature (the original API): ECDSA P-256 with SHA-256 over
    /// `bundleID ⁣ keyID ⁣ product ⁣ offer ⁣ appAccountToken ⁣ nonce ⁣ timestamp`, joined by
    /// U+2063 (the token and nonce lowercased), DER, in standard base64.
    ///
    /// - Parameters:
    ///   - appAccountToken: the app's `applicationUsername` (may be empty).
    ///   - timestamp: UNIX milliseconds; the offer stays valid for 24 hours after it.
    /// - Returns: the signed text and the signature StoreKit takes.
    public func promotionalOfferSignature(productIdentifier: String, offerIdentifier: String, appAccountToken: String,
                                          nonce: UUID, timestamp: Int64) -> (signedText: String, signature: String) {
        let text = [bundleID, keyID, productIdentifier, offerIdentifier, appAccountToken.lowercased(),
                    nonce.uuidString.lowercased(), String(timestamp)].joined(separator: "\u{2063}")
        return (text, JWSSigning.base64(key.derSignature(of: Array(text.utf8))))
    }

    /// The JWS StoreKit takes for a promotional offer (iOS 18.4 and later): audience
    /// `promotional-offer`, claims `productId`, `offerIdentifier` and, when given, `transactionId`.
    public func promotionalOfferV2(productId: String, offerIdentifier: String, transactionId: String?,
                                   issuedAt: Date, nonce: UUID) -> String {
        var claims: [(String, Claim)] = [("productId", .string(productId)), ("offerIdentifier", .string(offerIdentifier))]
        if let transactionId { claims.append(("transactionId", .string(transactionId))) }
        return jws(audience: "promotional-offer", claims: claims, issuedAt: issuedAt, nonce: nonce)
    }

    /// The JWS StoreKit takes to say whether a customer may have an introductory offer:
    /// audience `introductory-offer-eligibility`.
    public func introductoryOfferEligibility(productId: String, allowIntroductoryOffer: Bool, transactionId: String,
                                             issuedAt: Date, nonce: UUID) -> String {
        jws(audience: "introductory-offer-eligibility",
            claims: [("productId", .string(productId)), ("allowIntroductoryOffer", .bool(allowIntroductoryOffer)),
                     ("transactionId", .string(transactionId))],
            issuedAt: issuedAt, nonce: nonce)
    }

    enum Claim {
        case string(String)
        case bool(Bool)
    }

    /// Header `{"alg","kid","typ":"JWT"}`; the request's claims, then `bid`, `iss`, `aud`, `iat`
    /// (whole seconds) and `nonce`, in the order and with the escapes of Apple's library
    /// (Python's `json.dumps`: compact, non-ASCII as `\uXXXX`).
    private func jws(audience: String, claims: [(String, Claim)], issuedAt: Date, nonce: UUID) -> String {
        let header = "{\"alg\":\"ES256\",\"kid\":\(Self.quoted(keyID)),\"typ\":\"JWT\"}"
        var members = claims.map { name, value in
            switch value {
            case .string(let text): "\(Self.quoted(name)):\(Self.quoted(text))"
            case .bool(let flag): "\(Self.quoted(name)):\(flag)"
            }
        }
        members += ["\"bid\":\(Self.quoted(bundleID))", "\"iss\":\(Self.quoted(issuerID))", "\"aud\":\(Self.quoted(audience))",
                    "\"iat\":\(Int64(issuedAt.timeIntervalSince1970.rounded(.down)))", "\"nonce\":\(Self.quoted(nonce.uuidString.lowercased()))"]
        let payload = "{" + members.joined(separator: ",") + "}"
        return JWSSigning.sign(header: Array(header.utf8), payload: Array(payload.utf8), with: key)
    }

    /// A JSON string as Python's `json.dumps` writes it (ASCII only).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}
