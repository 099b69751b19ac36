import Crypto
import Foundation

/// Signs webhooks as the Standard Webhooks specification says: `webhook-signature` is `v1,` and
/// the base64 HMAC-SHA256, under the secret's key, of `webhook-id.webhook-timestamp.body`.
public struct WebhookSigner: Sendable {
    /// The key's bytes (`SymmetricKey` is not `Sendable`; one is made per signature).
    private let key: [UInt8]

    /// `secret` is `whsec_` and the base64 of the key (at least 16 bytes), as Standard Webhooks
    /// libraries generate and read it.
    public init(secret: String) throws(WebhookOptionError) {
        guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst("whsec_".count))) else {
            throw WebhookOptionError("--webhook-secret is whsec_ and base64 (a Standard Webhooks secret)")
        }
        guard key.count >= 16 else { throw WebhookOptionError("--webhook-secret's key has \(key.count) bytes; at least 16") }
        self.key = [UInt8](key)
    }

    /// The `webhook-signature` header's value for a message.
    public func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        var signed = Array("\(id).\(timestamp).".utf8)
        signed += body
        return "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))).base64EncodedString()
    }
}

/// A webhook option the server refuses to start with.
public struct WebhookOptionError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
