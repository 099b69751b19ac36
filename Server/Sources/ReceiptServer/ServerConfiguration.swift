import Foundation
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
    /// The shared StoreKit 2 verifier: trust anchor (Apple Root CA - G3 by default), policy and
    /// chain cache. Its expectations are always this configuration's
    /// (``acceptance``): setting it, or the bundle ids, environment or App Apple ID,
    /// makes it again with them, so tokens and receipts cannot be held to different rules.
    public var signedDataVerifier: SignedDataVerifier { didSet { alignSignedDataExpectations() } }
    /// Bundle identifiers the server accepts, byte for byte (a look-alike in another Unicode
    /// normalisation is another app); empty accepts any.
    public var acceptedBundleIDs: Set<ExactIdentifier> { didSet { alignSignedDataExpectations() } }
    /// The environment the server expects: data from another is refused as `environmentMismatch`,
    /// a receipt's verifyReceipt status 21007 or 21008, or 21003 for one of unknown type
    /// (``VerifyReceiptResponse/environmentCheck(_:expecting:)``).
    public var expectedEnvironment: Environment? { didSet { alignSignedDataExpectations() } }
    /// The App Apple ID receipts (their app item id) and StoreKit 2 tokens must carry: production
    /// data; sandbox data without one is not held to it.
    public var appAppleID: Int64? { didSet { alignSignedDataExpectations() } }
    /// The largest request body read, in bytes; larger requests get 413.
    public var maximumBodySize: Int
    /// Seconds a connection may stay idle (including a client that stops sending mid-request).
    public var idleTimeoutSeconds: Int64
    /// The most connections served at once; more wait in the listen backlog.
    public var maximumConnections: Int
    /// The most verifications (body parse, verification, decoding) run at once, each on a
    /// thread of its own off the event loops. Twice the processors by default: every core can
    /// be busy with an expensive body while as many slots remain for ordinary receipts, which
    /// take about a millisecond each.
    public var maximumConcurrentVerifications: Int
    /// Seconds a request may wait for a verification slot; one that waits longer is answered
    /// 503 with status 21005 ("temporarily unable"), which clients of Apple's service retry.
    public var verificationTimeoutSeconds: Double
    /// Bodies up to this many bytes are verified on the request's own thread once they hold a
    /// slot: the library's limits make them cheap (a 64 KiB receipt verifies in well under a
    /// millisecond), and a hop to the verification threads and back cost more than the
    /// verification itself (3 750 against 6 500 requests/s). Larger bodies go to the threads.
    var inlineBodySize = 64 << 10
    /// Tests only: runs in the verification slot before each verification, to make bodies
    /// expensive on demand (set ``inlineBodySize`` to 0 with it, so they run where large bodies do).
    var beforeVerification: (@Sendable (_ body: [UInt8]) -> Void)?

    /// The default ``maximumConcurrentVerifications``: twice the active processors.
    public static var defaultMaximumConcurrentVerifications: Int { 2 * ProcessInfo.processInfo.activeProcessorCount }

    /// Defaults: 127.0.0.1:8080, App Store rules anchored at Apple Inc. Root (receipts) and Apple
    /// Root CA - G3 (tokens), any bundle, any environment, no App Apple ID, 4 MiB bodies, 30 s
    /// idle timeout, 512 connections, twice the processors' count of verifications at once, each
    /// request waiting at most 2 s for one.
    public init(host: String = "127.0.0.1", port: Int = 8080, verifier: ReceiptVerifier = ReceiptVerifier(),
                signedDataVerifier: SignedDataVerifier = SignedDataVerifier(),
                acceptedBundleIDs: Set<ExactIdentifier> = [], expectedEnvironment: Environment? = nil, appAppleID: Int64? = nil,
                maximumBodySize: Int = 4 << 20, idleTimeoutSeconds: Int64 = 30, maximumConnections: Int = 512,
                maximumConcurrentVerifications: Int = ServerConfiguration.defaultMaximumConcurrentVerifications,
                verificationTimeoutSeconds: Double = 2) {
        self.host = host
        self.port = port
        self.verifier = verifier
        self.signedDataVerifier = signedDataVerifier
        self.acceptedBundleIDs = acceptedBundleIDs
        self.expectedEnvironment = expectedEnvironment
        self.appAppleID = appAppleID
        self.maximumBodySize = maximumBodySize
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maximumConnections = maximumConnections
        self.maximumConcurrentVerifications = maximumConcurrentVerifications
        self.verificationTimeoutSeconds = verificationTimeoutSeconds
        alignSignedDataExpectations()
    }

    /// The instant the support page gives subscription status for: the one certificates are
    /// judged at when the verifier fixes it (`--at`), else now, as receipt-dump does.
    var statusTime: Date {
        if case .instant(let instant) = verifier.policy.validationTime { return instant }
        return Date()
    }
}
