import ReceiptParser

/// Everything receipt-server is configured with. One value, made at start-up, shared by all
/// requests.
public struct ServerConfiguration: Sendable {
    /// Address to listen on; loopback by default, so exposing the server is a decision.
    public var host: String
    /// Port to listen on (0 picks a free one).
    public var port: Int
    /// The shared verifier: trust anchor, policy and chain cache.
    public var verifier: ReceiptVerifier
    /// Bundle identifiers the server accepts, byte for byte (a look-alike in another Unicode
    /// normalisation is another app); empty accepts any.
    public var acceptedBundleIDs: Set<ExactIdentifier>
    /// The environment the server expects: a receipt from the other one gets 21007 or 21008, one
    /// of unknown type 21003 (``VerifyReceiptResponse/environmentCheck(_:expecting:)``).
    public var expectedEnvironment: Environment?
    /// The largest request body read, in bytes; larger requests get 413.
    public var maximumBodySize: Int
    /// Seconds a connection may stay idle (including a client that stops sending mid-request).
    public var idleTimeoutSeconds: Int64
    /// The most connections served at once; more wait in the listen backlog.
    public var maximumConnections: Int

    /// Defaults: 127.0.0.1:8080, App Store rules anchored at Apple Inc. Root, any bundle, any
    /// environment, 4 MiB bodies, 30 s idle timeout, 512 connections.
    public init(host: String = "127.0.0.1", port: Int = 8080, verifier: ReceiptVerifier = ReceiptVerifier(),
                acceptedBundleIDs: Set<ExactIdentifier> = [], expectedEnvironment: Environment? = nil,
                maximumBodySize: Int = 4 << 20, idleTimeoutSeconds: Int64 = 30, maximumConnections: Int = 512) {
        self.host = host
        self.port = port
        self.verifier = verifier
        self.acceptedBundleIDs = acceptedBundleIDs
        self.expectedEnvironment = expectedEnvironment
        self.maximumBodySize = maximumBodySize
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maximumConnections = maximumConnections
    }

    /// Whether receipts of this app are served: any when ``acceptedBundleIDs`` is empty, else
    /// only a bundle identifier with exactly the bytes of an accepted one.
    public func accepts(bundleID: String?) -> Bool {
        acceptedBundleIDs.isEmpty || bundleID.map { acceptedBundleIDs.contains(ExactIdentifier($0)) } == true
    }
}
