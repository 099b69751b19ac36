/// A team's In-App Purchase key from App Store Connect and the app it speaks for: what signs the
/// App Store Server API's bearer tokens and the offers StoreKit takes.
public struct AppStoreCredentials: Sendable {
    /// The `.p8` key.
    public var key: ES256SigningKey
    /// The key's id (`kid`; `keyIdentifier` in offers).
    public var keyID: String
    /// The team's issuer id (`iss`).
    public var issuerID: String
    /// The app's bundle id (`bid`).
    public var bundleID: String

    public init(key: ES256SigningKey, keyID: String, issuerID: String, bundleID: String) {
        self.key = key
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
    }
}
