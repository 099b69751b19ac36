/// What a server requires of genuine signed data beyond its signature: its app and environment.
/// A requirement the kind cannot say anything about (renewal info carries no bundle id) is not
/// applicable and does not fail.
public struct SignedDataExpectations: Sendable, Hashable {
    /// The app's bundle id, compared byte for byte.
    public var bundleID: String?
    /// The environment: `Production`, `Sandbox` or `Xcode` (`LocalTesting` and anything else
    /// match none).
    public var environment: Environment?
    /// The app's App Apple ID. Apple assigns it in production; sandbox data may lack it, and is
    /// then not held to it.
    public var appAppleID: Int64?

    public init(bundleID: String? = nil, environment: Environment? = nil, appAppleID: Int64? = nil) {
        self.bundleID = bundleID
        self.environment = environment
        self.appAppleID = appAppleID
    }
}

extension Environment {
    /// The environment a StoreKit 2 payload names (`environment`, or an app transaction's
    /// `receiptType`), byte for byte.
    init(signedDataEnvironment name: String?) {
        switch name.map(ExactIdentifier.init) {
        case "Production": self = .production
        case "Sandbox": self = .sandbox
        case "Xcode": self = .xcode
        default: self = .unknown
        }
    }
}
