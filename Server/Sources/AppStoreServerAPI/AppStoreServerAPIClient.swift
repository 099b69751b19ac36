import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import ReceiptParser

/// A client of the App Store Server API that stays within Apple's limits and verifies what
/// Apple signs before anything uses it.
///
/// - Every request carries a bearer JWT made with the configured key, reused until shortly
///   before it expires.
/// - Requests to one endpoint leave no faster than its budget, and none before a `Retry-After`
///   instant Apple gave for that endpoint (a UNIX time in milliseconds).
/// - 5xx answers, Apple's retryable error codes and failed connections are tried again with
///   jittered exponential backoff, at most ``AppStoreServerAPIConfiguration/maxRetries`` times.
/// - Each request has a deadline (``AppStoreServerAPIConfiguration/timeout``), each call a bound
///   on its whole wait (``AppStoreServerAPIConfiguration/maxWait``), each answer a size cap.
/// - Every signed member of an answer is verified (``AppStoreAnswer``), and the answer read as
///   Apple's response model for the call (``AppStoreResponse``).
///
/// One client may serve any number of tasks; share it so they share its budgets.
public final class AppStoreServerAPIClient: Sendable {
    public let configuration: AppStoreServerAPIConfiguration
    let clock: any AppStoreClock
    private let http: HTTPClient
    private let ownsHTTPClient: Bool
    private let bearer: BearerToken
    private let budget: any AppStoreRequestBudget
    private let productionVerifier: SignedDataVerifier
    private let sandboxVerifier: SignedDataVerifier

    /// - Parameters:
    ///   - budget: where departures are reserved; by default this client's own. Clients that share
    ///     one (several servers on one ledger) share Apple's limits.
    ///   - httpClient: the HTTP client to send with; by default one of the client's own
    ///     (redirects refused), shut down by ``shutdown()``.
    public init(configuration: AppStoreServerAPIConfiguration, clock: any AppStoreClock = SystemAppStoreClock(),
                budget: any AppStoreRequestBudget = InMemoryRequestBudget(), httpClient: HTTPClient? = nil) {
        self.configuration = configuration
        self.clock = clock
        if let httpClient {
            http = httpClient
            ownsHTTPClient = false
        } else {
            var settings = HTTPClient.Configuration(redirectConfiguration: .disallow)
            // A connection that cannot be made (refused, no such host, a failed handshake, the
            // connect timeout) fails the requests waiting for it at once, each retried with the
            // client's own backoff, instead of being tried again quietly until their deadline.
            settings.connectionPool.retryConnectionEstablishment = false
            http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: settings)
            ownsHTTPClient = true
        }
        bearer = BearerToken(credentials: configuration.credentials)
        self.budget = budget
        func verifier(_ environment: Environment) -> SignedDataVerifier {
            let trust = configuration.trust
            var expectations = trust.expectations
            expectations.bundleIDs = [ExactIdentifier(configuration.credentials.bundleID)]
            // Xcode's StoreKit Testing signs for the Xcode environment, whichever host served it.
            if trust.anchor.mode == .appStore { expectations.environment = environment }
            return SignedDataVerifier(anchor: trust.anchor, policy: trust.policy, expectations: expectations,
                                      verifiesNestedTokens: trust.verifiesNestedTokens)
        }
        productionVerifier = verifier(.production)
        sandboxVerifier = verifier(.sandbox)
    }

    /// Shuts the client's own HTTP client down; call once, when done.
    public func shutdown() async throws {
        if ownsHTTPClient { try await http.shutdown() }
    }

    // MARK: One call

    /// One request as Apple's API takes it.
    struct Request: Sendable {
        var endpoint: AppStoreEndpoint
        var method: HTTPMethod
        /// The path after the base URL, its variable parts already escaped.
        var path: String
        var query: [(String, String)] = []
        var body: [UInt8]?
        /// Whether the environment `auto` may ask sandbox after production (not for Look Up
        /// Order ID: order ids exist only in production).
        var fallsBackToSandbox = true
    }

    /// Sends `request` to the configured environment (production then sandbox for `auto`),
    /// within the call's wait bound, and reads its answer.
    ///
    /// - Parameters:
    ///   - waitEnd: the call's wait bound, when the call makes several requests (pages).
    ///   - environment: asks only this environment (the later pages of a walk).
    func send(_ request: Request, waitEnd: Date? = nil, pinnedTo environment: Environment? = nil) async throws(AppStoreAPIError) -> AppStoreAnswer {
        let waitEnd = waitEnd ?? clock.now().addingTimeInterval(configuration.maxWait)
        if let environment { return try await send(request, to: environment, waitEnd: waitEnd) }
        switch configuration.environment {
        case .production: return try await send(request, to: .production, waitEnd: waitEnd)
        case .sandbox: return try await send(request, to: .sandbox, waitEnd: waitEnd)
        case .auto:
            do {
                return try await send(request, to: .production, waitEnd: waitEnd)
            } catch .refused(_, let status, let code, _) where request.fallsBackToSandbox
                        && (status == 401 || code.map(AppStoreAPIError.notFoundInProduction.contains) == true) {
                return try await send(request, to: .sandbox, waitEnd: waitEnd)
            }
        }
    }

    /// One environment: attempts until an answer, a refusal, or the retries or the wait run out.
    private func send(_ request: Request, to environment: Environment, waitEnd: Date) async throws(AppStoreAPIError) -> AppStoreAnswer {
        let production = environment == .production
        let base = production ? configuration.productionURL : configuration.sandboxURL
        let host = Self.host(of: base)
        let rate = (production ? configuration.productionBudgets : configuration.sandboxBudgets)[request.endpoint]
            ?? request.endpoint.defaultRate(inSandbox: !production)
        let key = "\(host) \(request.endpoint.rawValue)"
        var retries = 0
        var lastFailure = ""
        while true {
            try await waitForDeparture(key, rate: rate, waitEnd: waitEnd, host: host, lastFailure: lastFailure)
            let outcome = await attempt(request, base: base, host: host, waitEnd: waitEnd)
            var retryAt: Date?
            switch outcome {
            case .answer(let status, let bytes, _) where (200..<300).contains(status):
                return try AppStoreAnswer(bytes: bytes, environment: environment, host: host,
                                          verifier: production ? productionVerifier : sandboxVerifier)
            case .answer(let status, let bytes, _):
                let (code, message) = Self.appleError(bytes)
                let refusal = AppStoreAPIError.refused(host: host, status: status, errorCode: code, errorMessage: message)
                if status == 429 || code == AppStoreAPIError.rateLimitExceeded {
                    lastFailure = "HTTP 429 (rate limit)"
                    // Retry-After: when to ask again, in UNIX milliseconds; nothing leaves for this
                    // endpoint before it, however far ahead (a call whose wait bound ends sooner
                    // gives up at once). Without one, or one in the past (or seconds, as some
                    // proxies send), back off.
                    if let instant = outcome.retryAfter, instant > clock.now() {
                        try await budgetCall(host) { try await self.budget.block(key, until: instant) }
                        retryAt = instant
                    }
                } else if status >= 500 || code.map(AppStoreAPIError.retryableCodes.contains) == true {
                    lastFailure = "HTTP \(status)" + (code.map { ", errorCode \($0)" } ?? "")
                } else {
                    throw refusal
                }
                // Retries used up on what is worth retrying: no answer, whatever the status said.
                guard retries < configuration.maxRetries else {
                    throw .noAnswer(host: host, reason: "\(lastFailure) after \(retries + 1) attempts")
                }
            case .failed(let reason):
                lastFailure = reason
                guard retries < configuration.maxRetries else {
                    throw .noAnswer(host: host, reason: "\(reason) (after \(retries + 1) attempts)")
                }
            case .unreadable(let reason):
                throw .unreadable(host: host, reason: reason)
            }
            retries += 1
            let pause = retryAt ?? clock.now().addingTimeInterval(Self.backoff(retry: retries, first: configuration.backoff))
            guard pause <= waitEnd else {
                throw .noAnswer(host: host, reason: "\(lastFailure); asking again at \(RFC3339.string(from: pause)) would pass the call's wait bound (\(configuration.maxWait.secondsText) s)")
            }
            do { try await clock.sleep(until: pause) } catch { throw .noAnswer(host: host, reason: "cancelled") }
        }
    }

    /// Waits until the budget and any `Retry-After` let a request to `key` leave.
    private func waitForDeparture(_ key: String, rate: RequestRate, waitEnd: Date, host: String,
                                  lastFailure: String) async throws(AppStoreAPIError) {
        while true {
            let reserved = try await budgetCall(host) { try await self.budget.reserve(key, rate: rate, now: self.clock.now(), latest: waitEnd) }
            guard let departure = reserved else {
                throw .noAnswer(host: host, reason: (lastFailure.isEmpty ? "" : lastFailure + "; ")
                    + "the request budget (\(rate)) or Apple's Retry-After would hold the request past the call's wait bound (\(configuration.maxWait.secondsText) s)")
            }
            do { try await clock.sleep(until: departure) } catch { throw .noAnswer(host: host, reason: "cancelled") }
            // A 429 that arrived while this one waited holds it too.
            guard try await budgetCall(host, { try await self.budget.blocked(key, at: self.clock.now()) }) != nil else { return }
        }
    }

    /// A call to the budget's store; its failure (a shared store that is down) is no answer.
    private func budgetCall<T: Sendable>(_ host: String, _ body: () async throws -> T) async throws(AppStoreAPIError) -> T {
        do {
            return try await body()
        } catch {
            throw .noAnswer(host: host, reason: "the request budget cannot be read: \(error)")
        }
    }

    /// What one attempt gave.
    enum Attempt: Sendable {
        case answer(status: Int, bytes: [UInt8], retryAfter: Date? = nil)
        case failed(String)
        case unreadable(String)

        var retryAfter: Date? {
            if case .answer(_, _, let retryAfter) = self { return retryAfter }
            return nil
        }
    }

    /// One HTTP exchange, bounded by the request deadline and the call's wait bound, head and
    /// body alike; the body is read up to the cap.
    private func attempt(_ request: Request, base: String, host: String, waitEnd: Date) async -> Attempt {
        var url = base + request.path
        if !request.query.isEmpty {
            url += "?" + request.query.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        }
        var http = HTTPClientRequest(url: url)
        http.method = request.method
        http.headers.add(name: "Authorization", value: "Bearer " + bearer.token(at: clock.now()))
        http.headers.add(name: "Accept", value: "application/json")
        http.headers.add(name: "User-Agent", value: "ReceiptParser-AppStoreServerAPI")
        if let body = request.body {
            http.headers.add(name: "Content-Type", value: "application/json")
            http.body = .bytes(ByteBuffer(bytes: body))
        }
        let seconds = min(configuration.timeout, 3600, max(0, waitEnd.timeIntervalSince(clock.now())))
        let cap = configuration.maxAnswerBytes
        let client = self.http
        let prepared = http
        return await withTaskGroup(of: Attempt?.self) { group in
            group.addTask {
                do {
                    let response = try await client.execute(prepared, timeout: .milliseconds(Int64(seconds * 1000)))
                    if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > cap {
                        return .unreadable("the answer declares \(length) bytes, over the cap of \(cap)")
                    }
                    let body: ByteBuffer
                    do {
                        body = try await response.body.collect(upTo: cap)
                    } catch is NIOTooManyBytesError {
                        return .unreadable("the answer is over the cap of \(cap) bytes")
                    }
                    let retryAfter = response.headers.first(name: "Retry-After").flatMap(Self.retryAfter)
                    return .answer(status: Int(response.status.code), bytes: Array(buffer: body), retryAfter: retryAfter)
                } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
                    return .failed("no answer within \(seconds.secondsText) s")
                } catch {
                    return .failed(Self.describe(error))
                }
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000) + 50))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failed("no answer within \(seconds.secondsText) s")
        }
    }

    // MARK: Small pieces

    /// The last instant RFC 3339 can write (9999-12-31T23:59:59.999Z), in UNIX milliseconds.
    static let latestRetryAfter: Int64 = 253_402_300_799_999

    /// Retry-After in UNIX milliseconds (Apple's form); nil for anything else, a number past the
    /// year 9999 included (it is no instant a ledger or a log can write).
    static func retryAfter(_ text: String) -> Date? {
        guard let milliseconds = Int64(text.filter { $0 != " " }), milliseconds > 0, milliseconds <= latestRetryAfter else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }

    /// `{"errorCode": N, "errorMessage": "…"}`, when the body is that.
    static func appleError(_ bytes: [UInt8]) -> (Int?, String?) {
        guard let body = try? StrictJSON.parse(bytes) else { return (nil, nil) }
        var code: Int?
        var message: String?
        if case .number(let text)? = body["errorCode"] { code = Int(text) }
        if case .string(let text)? = body["errorMessage"] { message = text }
        return (code, message)
    }

    /// Full jitter: a random wait up to `first` × 2^(retry − 1), at most a minute.
    static func backoff(retry: Int, first: Double) -> Double {
        Double.random(in: 0...min(60, first * Double(1 << min(retry - 1, 16))))
    }

    static func host(of base: String) -> String {
        URL(string: base)?.host ?? base
    }

    /// Escapes a path segment or query value: only letters, digits, `-`, `_` and `~` stay, so an
    /// id can neither leave its segment (`/`, `?`, `#`) nor be a dot segment.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                escaped.append(Character(Unicode.Scalar(byte)))
            default:
                escaped += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return escaped
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return "HTTP client: \(error)" }
        return "\(error)"
    }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
