import CoreMetrics
import HTTPTypes
import NIOConcurrencyHelpers
import Prometheus
import ReceiptLedger

/// What the server counts, in a Prometheus registry of its own (one per application, so that
/// tests read the metrics of the server they started), served at `GET /metrics`.
///
/// Every label is bounded: a route pattern (or `unmatched`), a method of the routes' own, a
/// status code, a refusal code or an operation name; never a value from a request.
public final class ServerMetrics: Sendable {
    /// The registry the metrics live in; `GET /metrics` writes it out.
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    /// Requests that waited for a verification slot, and those that gave up (answered `busy`).
    let gateWaits: CoreMetrics.Counter
    let gateRefusals: CoreMetrics.Counter
    /// Ledger operations that failed because the database did.
    let storageFailures: CoreMetrics.Counter
    private let requests = NIOLockedValueBox([RequestKey: CoreMetrics.Counter]())
    private let verifications = NIOLockedValueBox([LabelPair: CoreMetrics.Counter]())
    private let durations = NIOLockedValueBox([String: CoreMetrics.Timer]())
    private let ledgerOperations = NIOLockedValueBox([LabelPair: CoreMetrics.Counter]())

    /// Verification latency buckets: a receipt takes about a millisecond, an expensive body tens.
    static let durationBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
    ]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["receipt_server_verification_duration_seconds"] = Self.durationBuckets
        self.factory = factory
        gateWaits = CoreMetrics.Counter(label: "receipt_server_gate_waits_total", factory: factory)
        gateRefusals = CoreMetrics.Counter(label: "receipt_server_gate_refusals_total", factory: factory)
        storageFailures = CoreMetrics.Counter(label: "receipt_server_ledger_storage_failures_total", factory: factory)
    }

    /// The text `GET /metrics` answers (Prometheus exposition format 0.0.4).
    public func exposition() -> String { registry.emitToString() }

    // MARK: Requests

    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct LabelPair: Hashable {
        let first: String
        let second: String
    }

    /// One answered request: its route pattern (nil for a path no route matched), its method and
    /// its status.
    func countRequest(route: String?, method: HTTPRequest.Method, status: HTTPResponse.Status) {
        let key = RequestKey(route: Self.routeLabel(route), method: Self.methodLabel(method), status: status.code)
        cached(in: requests, key) {
            CoreMetrics.Counter(label: "receipt_server_http_requests_total",
                                dimensions: [("route", key.route), ("method", key.method), ("status", String(key.status))], factory: factory)
        }.increment()
    }

    /// A route's pattern (`/v1/users/{user}`), or `unmatched` for a request no route took:
    /// Hummingbird names those `NotFound`, and the path itself is the client's text.
    static func routeLabel(_ endpointPath: String?) -> String {
        guard let endpointPath, endpointPath != "NotFound" else { return "unmatched" }
        return endpointPath
    }

    /// The methods the routes take; any other (a client may send any token) is `other`.
    static func methodLabel(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get: "GET"
        case .post: "POST"
        case .put: "PUT"
        case .head: "HEAD"
        default: "other"
        }
    }

    // MARK: Verifications

    /// One verification's outcome on `route`: `verified` or the refusal's code.
    func countVerification(route: String, code: String) {
        cached(in: verifications, LabelPair(first: route, second: code)) {
            CoreMetrics.Counter(label: "receipt_server_verifications_total", dimensions: [("route", route), ("code", code)], factory: factory)
        }.increment()
    }

    /// How long one verification took, in its slot (the wait for the slot excluded).
    func recordVerification(route: String, nanoseconds: Int64) {
        cached(in: durations, route) {
            CoreMetrics.Timer(label: "receipt_server_verification_duration_seconds", dimensions: [("route", route)], factory: factory)
        }.recordNanoseconds(nanoseconds)
    }

    // MARK: The ledger

    /// `operation`'s result, counted by how it ended.
    func ledgerOperation<Value>(_ operation: String, _ body: () async throws(LedgerError) -> Value) async throws(LedgerError) -> Value {
        do {
            let value = try await body()
            countLedgerOperation(operation, outcome: "ok")
            return value
        } catch {
            countLedgerOperation(operation, outcome: Refusal(error).code)
            throw error
        }
    }

    /// One ledger operation and how it ended: `ok` or a refusal code (`storageUnavailable` when
    /// the database failed).
    func countLedgerOperation(_ operation: String, outcome: String) {
        cached(in: ledgerOperations, LabelPair(first: operation, second: outcome)) {
            CoreMetrics.Counter(label: "receipt_server_ledger_operations_total",
                                dimensions: [("operation", operation), ("outcome", outcome)], factory: factory)
        }.increment()
        if outcome == Refusal.storageUnavailable.code { storageFailures.increment() }
    }

    /// The metric for `key`, made once: the registry's own lookup builds its key from the labels,
    /// this one hashes a few short strings.
    private func cached<Key: Hashable, Metric>(in box: NIOLockedValueBox<[Key: Metric]>, _ key: Key, _ make: () -> Metric) -> Metric {
        if let metric = box.withLockedValue({ $0[key] }) { return metric }
        let metric = make()
        box.withLockedValue { $0[key] = metric }
        return metric
    }
}
