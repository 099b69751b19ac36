#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser
import NIOConcurrencyHelpers

/// The bearer token Apple's API takes: an ES256 JWT (`kid`, `typ: JWT`; `iss`, `iat`, `exp`,
/// `aud: appstoreconnect-v1`, `bid`), made once and reused until shortly before it expires, so
/// a burst of requests costs one signature.
final class BearerToken: Sendable {
    /// How long a token is valid (Apple accepts at most an hour).
    static let lifetime: TimeInterval = 20 * 60
    /// A token is replaced this long before it expires, so none expires on its way to Apple.
    static let renewal: TimeInterval = 5 * 60

    private let credentials: AppStoreCredentials
    private let current = NIOLockedValueBox<(token: String, expires: Date)?>(nil)

    init(credentials: AppStoreCredentials) {
        self.credentials = credentials
    }

    /// The token to send at `now`.
    func token(at now: Date) -> String {
        current.withLockedValue { current in
            if let current, current.expires.timeIntervalSince(now) > Self.renewal { return current.token }
            let issued = Int64(now.timeIntervalSince1970.rounded(.down))
            let expires = issued + Int64(Self.lifetime)
            var header = JSONWriter()
            header.beginObject()
            header.key("alg"); header.string("ES256")
            header.key("kid"); header.string(credentials.keyID)
            header.key("typ"); header.string("JWT")
            header.endObject()
            var claims = JSONWriter()
            claims.beginObject()
            claims.key("aud"); claims.string("appstoreconnect-v1")
            claims.key("bid"); claims.string(credentials.bundleID)
            claims.key("exp"); claims.number(expires)
            claims.key("iat"); claims.number(issued)
            claims.key("iss"); claims.string(credentials.issuerID)
            claims.endObject()
            let token = JWSSigning.sign(header: header.finish(), payload: claims.finish(), with: credentials.key)
            current = (token, Date(timeIntervalSince1970: TimeInterval(expires)))
            return token
        }
    }
}
