import AppStoreServerAPI
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceiptParser

/// An offline Apple for the tests: the App Store Server API's routes under `/production` and
/// `/sandbox` on one loopback server, answering as Apple does, with tokens signed by the
/// repository's JWS test PKI.
///
/// It checks each request's bearer JWT as Apple does (ES256 by the key's public half, `kid`,
/// `typ`, `iss`, `aud`, `bid`, an `exp` in the future and at most an hour after `iat`), keeps
/// every request's arrival (for budget and `Retry-After` assertions), and misbehaves on command
/// (``Fault``). Nothing reaches the internet.
public final class AppleSimulator: @unchecked Sendable {
    /// What the next matching requests meet instead of Apple's answer.
    public enum Fault: Sendable {
        /// 429 with `Retry-After` this many seconds from the request, in UNIX milliseconds.
        case rateLimit(after: Double)
        /// This HTTP status, with Apple's error body when a code is given.
        case status(Int, errorCode: Int?, message: String = "Simulated error.")
        /// No answer for this many seconds (the connection stays open).
        case hang(seconds: Double)
        /// A 200 answer of this many bytes, its length declared.
        case oversized(bytes: Int)
        /// A 200 answer of this many bytes, streamed in chunks without a declared length.
        case oversizedStream(bytes: Int)
        /// A 200 answer that is not JSON.
        case notJSON
        /// Paged answers say `hasMore` with the same page token every time.
        case repeatingPage
        /// The answer's first token is signed by the attacker's PKI, not Apple's.
        case forgedToken
        /// A 200 answer with this top-level member set (replaced, or added after the others).
        case member(String, StrictJSON.Value)
    }

    /// One request as it arrived.
    public struct Arrival: Sendable {
        public let endpoint: AppStoreEndpoint?
        public let environment: ReceiptParser.Environment
        public let instant: Date
        public let status: Int
    }

    public let keyID = "SIMKEY1234"
    public let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    public let bundleID = "com.example.receipts"
    /// The `.p8` the tests' clients sign with (PKCS #8 PEM), made fresh for each simulator.
    public let privateKeyPEM: String
    private let publicKey: P256.Signing.PublicKey

    private let lock = NSLock()
    private var stores: [ReceiptParser.Environment: Store] = [.production: Store(), .sandbox: Store()]
    private var faults: [(fault: Fault, endpoint: AppStoreEndpoint?, remaining: Int)] = []
    private var arrivals: [Arrival] = []
    /// Production answers 401 to everything, as for an app without a production release.
    public var unreleased: Bool {
        get { lock.withLock { isUnreleased } }
        set { lock.withLock { isUnreleased = newValue } }
    }
    private var isUnreleased = false
    /// Items per page of the paged calls.
    public var pageSize = 2

    private let signer: Signer
    private let attacker: Signer

    public init() throws {
        let key = P256.Signing.PrivateKey()
        privateKeyPEM = key.pemRepresentation
        publicKey = key.publicKey
        signer = try Signer(prefix: "jws")
        attacker = try Signer(prefix: "jws-attacker")
    }

    /// The trust that verifies this simulator's tokens: App Store rules anchored at the test root.
    public static func trust() throws -> SignedDataVerifier {
        SignedDataVerifier(anchor: try .appStore(rootCertificate: Signer.read("jws-root.der")))
    }

    /// What Apple holds for one environment.
    struct Store {
        /// Transactions in purchase order: payload members.
        var transactions: [[(key: String, value: StrictJSON.Value)]] = []
        var renewalInfos: [String: [(key: String, value: StrictJSON.Value)]] = [:]
        var orders: [String: [String]] = [:]
        var notifications: [(payload: [(key: String, value: StrictJSON.Value)], signedDate: Date, failed: Bool)] = []
        var extensions: [String: Int] = [:]
        var appAccountTokens: [String: String] = [:]
    }

    // MARK: Setting Apple up

    /// Adds a transaction (its payload members; `environment` is written in) and, for an
    /// order id, its order.
    public func add(transaction members: [(key: String, value: StrictJSON.Value)], in environment: ReceiptParser.Environment, orderId: String? = nil) {
        lock.withLock {
            stores[environment]!.transactions.append(members)
            if let orderId, let id = Self.string(members, "transactionId") { stores[environment]!.orders[orderId, default: []].append(id) }
        }
    }

    /// Adds renewal info for its `originalTransactionId`.
    public func add(renewalInfo members: [(key: String, value: StrictJSON.Value)], in environment: ReceiptParser.Environment) {
        lock.withLock { stores[environment]!.renewalInfos[Self.string(members, "originalTransactionId") ?? ""] = members }
    }

    /// Adds a notification Apple sent at `signedDate` (`failed`: its delivery failed).
    public func add(notification members: [(key: String, value: StrictJSON.Value)], signedDate: Date, failed: Bool, in environment: ReceiptParser.Environment) {
        lock.withLock { stores[environment]!.notifications.append((members, signedDate, failed)) }
    }

    /// The next `times` requests (to `endpoint`, or any) meet `fault`.
    public func inject(_ fault: Fault, times: Int = 1, endpoint: AppStoreEndpoint? = nil) {
        lock.withLock { faults.append((fault, endpoint, times)) }
    }

    /// Every request so far, in arrival order (each kept once it is answered).
    public var requests: [Arrival] { lock.withLock { arrivals } }
    /// How many requests have arrived, answered or not (one held by a `hang` counts at once).
    public var requestsStarted: Int { lock.withLock { started } }
    private var started = 0

    /// The app account tokens set, by original transaction id.
    public func appAccountTokens(in environment: ReceiptParser.Environment) -> [String: String] { lock.withLock { stores[environment]!.appAccountTokens } }

    // MARK: The server

    /// The simulator as a Hummingbird application on a loopback port of its own.
    public var application: some ApplicationProtocol {
        let router = Router()
        for environment in ["production", "sandbox"] {
            router.on("\(environment)/**", method: .get) { request, context in try await self.answer(request, context) }
            router.on("\(environment)/**", method: .post) { request, context in try await self.answer(request, context) }
            router.on("\(environment)/**", method: .put) { request, context in try await self.answer(request, context) }
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    private func answer(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let path = request.uri.path
        let environment: ReceiptParser.Environment = path.hasPrefix("/production/") ? .production : .sandbox
        let route = path.split(separator: "/").dropFirst().map(String.init)  // inApps, v1, ...
        let endpoint = Self.endpoint(request.method, route)
        let body = Array(try await request.body.collect(upTo: 1 << 20).readableBytesView)
        let query = request.uri.queryParameters
        let now = Date()
        lock.withLock { started += 1 }
        var status = 200
        defer { lock.withLock { arrivals.append(Arrival(endpoint: endpoint, environment: environment, instant: now, status: status)) } }

        guard authorized(request.headers[.authorization]) else { status = 401; return Self.response(401, []) }
        if environment == .production && unreleased { status = 401; return Self.response(401, []) }
        var forged = false
        var repeating = false
        var replaced: (key: String, value: StrictJSON.Value)?
        if let fault = takeFault(for: endpoint) {
            switch fault {
            case .rateLimit(let after):
                status = 429
                var response = Self.response(429, Self.error(4290000, "Rate limit exceeded."))
                response.headers[HTTPField.Name("Retry-After")!] = String(Int64((now.timeIntervalSince1970 + after) * 1000))
                return response
            case .status(let code, let errorCode, let message):
                status = code
                return Self.response(code, errorCode.map { Self.error($0, message) } ?? [])
            case .hang(let seconds):
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                status = 503
                return Self.response(503, [])
            case .oversized(let bytes):
                return Self.response(200, Array("{\"padding\":\"".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: bytes) + Array("\"}".utf8))
            case .oversizedStream(let bytes):
                let chunk = ByteBuffer(repeating: UInt8(ascii: " "), count: 1024)
                let body = ResponseBody { writer in
                    for _ in 0..<(bytes / 1024) { try await writer.write(chunk) }
                    try await writer.finish(nil)
                }
                return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
            case .notJSON:
                return Self.response(200, Array("<html>Service Unavailable</html>".utf8))
            case .repeatingPage: repeating = true
            case .forgedToken: forged = true
            case .member(let key, let value): replaced = (key, value)
            }
        }
        let store = lock.withLock { stores[environment]! }
        func json(_ members: [(key: String, value: StrictJSON.Value)]) -> Response {
            guard let replaced else { return Self.json(members) }
            var members = members.filter { $0.key != replaced.key }
            members.append(replaced)
            return Self.json(members)
        }
        var signedOne = false
        func sign(_ members: [(key: String, value: StrictJSON.Value)]) -> StrictJSON.Value {
            let useAttacker = forged && !signedOne
            signedOne = true
            return .string((useAttacker ? attacker : signer).sign(members))
        }
        func notFound() -> Response { status = 404; return Self.response(404, Self.error(4040010, "Transaction id not found.")) }
        let last = route.last ?? ""
        let environmentName: StrictJSON.Value = .string(environment == .production ? "Production" : "Sandbox")
        switch endpoint {
        case .transactionInfo?:
            guard let transaction = store.transactions.first(where: { Self.string($0, "transactionId") == last }) else { return notFound() }
            return json([("signedTransactionInfo", sign(transaction))])
        case .transactionHistory?, .refundHistory?:
            guard store.transactions.contains(where: { Self.string($0, "transactionId") == last }) else { return notFound() }
            let all = endpoint == .refundHistory ? store.transactions.filter { $0.contains { $0.key == "revocationDate" } } : store.transactions
            let start = Int((query["revision"] ?? "").dropFirst(4)) ?? 0
            let page = Array(all.dropFirst(start).prefix(pageSize))
            let next = start + page.count
            let hasMore = repeating || next < all.count
            var members: [(key: String, value: StrictJSON.Value)] = [
                ("revision", .string(repeating ? "rev-0" : "rev-\(next)")), ("hasMore", .bool(hasMore)),
                ("signedTransactions", .array(page.map(sign))),
            ]
            if endpoint == .transactionHistory {
                members += [("bundleId", .string(bundleID)), ("appAppleId", .number("1234567890")), ("environment", environmentName)]
            }
            return json(members)
        case .subscriptionStatuses?:
            guard let asked = store.transactions.first(where: { Self.string($0, "transactionId") == last }) else { return notFound() }
            let original = Self.string(asked, "originalTransactionId")
            let latest = store.transactions.last { Self.string($0, "originalTransactionId") == original }!
            var item: [(key: String, value: StrictJSON.Value)] = [
                ("status", .number("1")), ("originalTransactionId", .string(original ?? "")), ("signedTransactionInfo", sign(latest)),
            ]
            if let renewal = store.renewalInfos[original ?? ""] { item.append(("signedRenewalInfo", sign(renewal))) }
            return json([
                ("environment", environmentName), ("bundleId", .string(bundleID)), ("appAppleId", .number("1234567890")),
                ("data", .array([.object([("subscriptionGroupIdentifier", .string("group")), ("lastTransactions", .array([.object(item)]))])])),
            ])
        case .orderLookup?:
            guard let ids = store.orders[last] else { return json([("status", .number("1"))]) }
            let transactions = ids.compactMap { id in store.transactions.first { Self.string($0, "transactionId") == id } }
            return json([("status", .number("0")), ("signedTransactions", .array(transactions.map(sign)))])
        case .notificationHistory?:
            guard let request = try? StrictJSON.parse(body), case .number(let startText)? = request["startDate"],
                  case .number(let endText)? = request["endDate"], let startMs = Int64(startText), let endMs = Int64(endText)
            else { status = 400; return Self.response(400, Self.error(4000015, "Invalid start date.")) }
            let onlyFailures = request["onlyFailures"] == .bool(true)
            // transactionId: that customer's notifications only (here: the subscription's).
            var customer: String?
            if case .string(let id)? = request["transactionId"] {
                customer = store.transactions.first { Self.string($0, "transactionId") == id }.flatMap { Self.string($0, "originalTransactionId") } ?? id
            }
            let matching = store.notifications.filter {
                let ms = Int64($0.signedDate.timeIntervalSince1970 * 1000)
                return ms >= startMs && ms < endMs && (!onlyFailures || $0.failed)
                    && (customer == nil || Self.originalTransactionId(ofNotification: $0.payload) == customer)
            }
            let start = Int((query["paginationToken"] ?? "").dropFirst(4)) ?? 0
            let page = Array(matching.dropFirst(start).prefix(pageSize))
            let next = start + page.count
            var items: [StrictJSON.Value] = []
            for item in page {
                let attempt: Members = [
                    ("attemptDate", .number(String(Int64(item.signedDate.timeIntervalSince1970 * 1000)))),
                    ("sendAttemptResult", .string(item.failed ? "TIMED_OUT" : "SUCCESS")),
                ]
                let entry: Members = [("signedPayload", sign(item.payload)), ("sendAttempts", .array([.object(attempt)]))]
                items.append(.object(entry))
            }
            let hasMore = repeating || next < matching.count
            var members: [(key: String, value: StrictJSON.Value)] = [("notificationHistory", .array(items)), ("hasMore", .bool(hasMore))]
            if hasMore { members.append(("paginationToken", .string(repeating ? "tok-0" : "tok-\(next)"))) }
            return json(members)
        case .requestTestNotification?:
            return json([("testNotificationToken", .string("test-\(UUID().uuidString.lowercased())"))])
        case .testNotificationStatus?:
            let payload: [(key: String, value: StrictJSON.Value)] = [
                ("notificationType", .string("TEST")), ("notificationUUID", .string(UUID().uuidString.lowercased())),
                ("data", .object([("bundleId", .string(bundleID)), ("environment", environmentName)])),
                ("version", .string("2.0")), ("signedDate", .number(String(Int64(Self.signedDate.timeIntervalSince1970 * 1000)))),
            ]
            return json([("signedPayload", sign(payload)), ("sendAttempts", .array([]))])
        case .appTransactionInfo?:
            guard store.transactions.contains(where: { Self.string($0, "transactionId") == last }) else { return notFound() }
            let app: [(key: String, value: StrictJSON.Value)] = [
                ("receiptType", environmentName), ("appAppleId", .number("1234567890")), ("bundleId", .string(bundleID)),
                ("applicationVersion", .string("1")), ("originalApplicationVersion", .string("1")),
                ("receiptCreationDate", .number(String(Int64(Self.signedDate.timeIntervalSince1970 * 1000)))),
                ("originalPurchaseDate", .number(String(Int64(Self.signedDate.timeIntervalSince1970 * 1000)))),
                ("signedDate", .number(String(Int64(Self.signedDate.timeIntervalSince1970 * 1000)))),
                ("appTransactionId", .string("704")), ("originalPlatform", .string("iOS")),
            ]
            return json([("signedAppTransactionInfo", sign(app))])
        case .consumptionInformation?:
            guard let request = try? StrictJSON.parse(body), request["customerConsented"] == .bool(true) else {
                status = 400
                return Self.response(400, Self.error(4000035, "Invalid customer consented."))
            }
            status = 202
            return Self.response(202, [])
        case .extendRenewalDate?:
            guard let request = try? StrictJSON.parse(body), case .number(let days)? = request["extendByDays"], let count = Int(days), (1...90).contains(count)
            else { status = 400; return Self.response(400, Self.error(4000009, "Invalid extend by days value.")) }
            lock.withLock { stores[environment]!.extensions[last, default: 0] += count }
            return json([("originalTransactionId", .string(last)), ("webOrderLineItemId", .string("9001")), ("success", .bool(true)),
                              ("effectiveDate", .number(String(Int64(now.timeIntervalSince1970 * 1000))))])
        case .massExtendRenewalDate?:
            guard let request = try? StrictJSON.parse(body), case .string(let id)? = request["requestIdentifier"] else {
                status = 400
                return Self.response(400, Self.error(4000011, "Invalid request identifier."))
            }
            return json([("requestIdentifier", .string(id))])
        case .massExtensionStatus?:
            return json([("requestIdentifier", .string(last)), ("complete", .bool(true)),
                              ("completeDate", .number(String(Int64(now.timeIntervalSince1970 * 1000)))),
                              ("succeededCount", .number("30")), ("failedCount", .number("2"))])
        case .setAppAccountToken?:
            let original = route.count >= 2 ? route[route.count - 2] : ""
            guard store.transactions.contains(where: { Self.string($0, "originalTransactionId") == original }) else { return notFound() }
            guard let request = try? StrictJSON.parse(body), case .string(let token)? = request["appAccountToken"], UUID(uuidString: token) != nil else {
                status = 400
                return Self.response(400, Self.error(4000183, "Invalid app account token."))
            }
            lock.withLock { stores[environment]!.appAccountTokens[original] = token }
            return Self.response(200, [])
        case nil:
            status = 404
            return Self.response(404, [])
        }
    }

    /// The instant the simulator's payloads are signed at: inside the test PKI's validity.
    public static let signedDate = Date(timeIntervalSince1970: 1_748_779_200)

    private func takeFault(for endpoint: AppStoreEndpoint?) -> Fault? {
        lock.withLock {
            guard let index = faults.firstIndex(where: { $0.endpoint == nil || $0.endpoint == endpoint }) else { return nil }
            let fault = faults[index].fault
            faults[index].remaining -= 1
            if faults[index].remaining == 0 { faults.remove(at: index) }
            return fault
        }
    }

    /// Apple's check of the bearer token.
    private func authorized(_ header: String?) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        let parts = header.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Self.base64url(parts[0]), let claimsBytes = Self.base64url(parts[1]),
              let signature = Self.base64url(parts[2]),
              let jwtHeader = try? StrictJSON.parse(headerBytes), let claims = try? StrictJSON.parse(claimsBytes),
              let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
              publicKey.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { return false }
        guard jwtHeader["alg"] == .string("ES256"), jwtHeader["kid"] == .string(keyID), jwtHeader["typ"] == .string("JWT"),
              claims["iss"] == .string(issuerID), claims["aud"] == .string("appstoreconnect-v1"), claims["bid"] == .string(bundleID),
              case .number(let iatText)? = claims["iat"], case .number(let expText)? = claims["exp"],
              let iat = Double(iatText), let exp = Double(expText)
        else { return false }
        let now = Date().timeIntervalSince1970
        return exp > now && exp - iat <= 3600 && iat <= now + 60
    }

    static func endpoint(_ method: HTTPRequest.Method, _ route: [String]) -> AppStoreEndpoint? {
        guard route.first == "inApps", route.count >= 3 else { return nil }
        let tail = Array(route.dropFirst(2))  // after inApps/vN
        switch (method, route[1], tail.first ?? "", tail.count) {
        case (.get, "v1", "transactions", 2): return .transactionInfo
        case (.get, "v1", "transactions", 3) where tail[1] == "appTransactions": return .appTransactionInfo
        case (.put, "v1", "transactions", 3) where tail[2] == "appAccountToken": return .setAppAccountToken
        case (.put, "v2", "transactions", 3) where tail[1] == "consumption": return .consumptionInformation
        case (.get, "v2", "history", 2): return .transactionHistory
        case (.get, "v1", "subscriptions", 2): return .subscriptionStatuses
        case (.get, "v2", "refund", 3) where tail[1] == "lookup": return .refundHistory
        case (.get, "v1", "lookup", 2): return .orderLookup
        case (.post, "v1", "notifications", 2) where tail[1] == "history": return .notificationHistory
        case (.post, "v1", "notifications", 2) where tail[1] == "test": return .requestTestNotification
        case (.get, "v1", "notifications", 3) where tail[1] == "test": return .testNotificationStatus
        case (.put, "v1", "subscriptions", 3) where tail[1] == "extend": return .extendRenewalDate
        case (.post, "v1", "subscriptions", 3) where tail[1] == "extend" && tail[2] == "mass": return .massExtendRenewalDate
        case (.get, "v1", "subscriptions", 5) where tail[1] == "extend" && tail[2] == "mass": return .massExtensionStatus
        default: return nil
        }
    }

    static func string(_ members: [(key: String, value: StrictJSON.Value)], _ key: String) -> String? {
        for member in members where member.key == key { if case .string(let value) = member.value { return value } }
        return nil
    }

    static func error(_ code: Int, _ message: String) -> [UInt8] {
        var json = JSONWriter()
        StrictJSON.Value.object([("errorCode", .number(String(code))), ("errorMessage", .string(message))]).write(to: &json)
        return json.finish()
    }

    static func json(_ members: [(key: String, value: StrictJSON.Value)]) -> Response {
        var json = JSONWriter()
        StrictJSON.Value.object(members).write(to: &json)
        return response(200, json.finish())
    }

    static func response(_ status: Int, _ body: [UInt8]) -> Response {
        var headers = HTTPFields()
        if !body.isEmpty { headers[.contentType] = "application/json" }
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func base64url(_ text: Substring) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }

    /// Signs payloads as the App Store does, with one of the test PKIs (TestReceipts/pki).
    struct Signer: Sendable {
        static let pki = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TestReceipts/pki")

        static func read(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: pki.appendingPathComponent(name))) }

        let key: ES256SigningKey
        let header: [UInt8]

        init(prefix: String) throws {
            key = try ES256SigningKey(pkcs8: Self.read("\(prefix)-leaf.key.pem"))
            let chain = try ["\(prefix)-leaf.der", "\(prefix)-intermediate.der", "\(prefix)-root.der"].map { JWSSigning.base64(try Self.read($0)) }
            var json = JSONWriter()
            json.beginObject()
            json.key("alg"); json.string("ES256")
            json.key("x5c"); json.beginArray()
            for certificate in chain { json.string(certificate) }
            json.endArray()
            json.endObject()
            header = json.finish()
        }

        func sign(_ members: [(key: String, value: StrictJSON.Value)]) -> String {
            var json = JSONWriter()
            StrictJSON.Value.object(members).write(to: &json)
            return JWSSigning.sign(header: header, payload: json.finish(), with: key)
        }
    }
}

extension AppleSimulator {
    public typealias Members = [(key: String, value: StrictJSON.Value)]

    /// A transaction's payload as Apple signs it. An `expires` date makes it an auto-renewable
    /// subscription's; `revoked` adds a refund.
    public func transaction(id: String, original: String? = nil, product: String = "com.example.monthly",
                            environment: ReceiptParser.Environment, purchased: Date = AppleSimulator.signedDate, expires: Date? = nil,
                            revoked: Date? = nil) -> Members {
        func ms(_ date: Date) -> StrictJSON.Value { .number(String(Int64(date.timeIntervalSince1970 * 1000))) }
        var members: Members = [
            ("transactionId", .string(id)), ("originalTransactionId", .string(original ?? id)), ("bundleId", .string(bundleID)),
            ("productId", .string(product)), ("purchaseDate", ms(purchased)), ("originalPurchaseDate", ms(purchased)),
            ("quantity", .number("1")), ("type", .string(expires == nil ? "Consumable" : "Auto-Renewable Subscription")),
            ("inAppOwnershipType", .string("PURCHASED")), ("signedDate", ms(max(purchased, AppleSimulator.signedDate))),
            ("environment", .string(environment == .production ? "Production" : "Sandbox")),
            ("transactionReason", .string("PURCHASE")), ("storefront", .string("USA")), ("storefrontId", .string("143441")),
        ]
        if let expires {
            members += [("expiresDate", ms(expires)), ("subscriptionGroupIdentifier", .string("group")), ("webOrderLineItemId", .string("w\(id)"))]
        }
        if let revoked { members += [("revocationDate", ms(revoked)), ("revocationReason", .number("0"))] }
        return members
    }

    /// `members` signed as Apple signs: a compact JWS by the test PKI.
    public func signed(_ members: Members) -> String { signer.sign(members) }

    /// The `originalTransactionId` in a notification's signed transaction (read, not verified:
    /// the simulator signed it).
    static func originalTransactionId(ofNotification members: Members) -> String? {
        guard case .object(let data)? = members.first(where: { $0.key == "data" })?.value,
              case .string(let token)? = data.first(where: { $0.key == "signedTransactionInfo" })?.value else { return nil }
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let payload = Data(base64Encoded: base64), case .object(let transaction)? = try? StrictJSON.parse(Array(payload)) else { return nil }
        return string(transaction, "originalTransactionId")
    }

    /// A notification's payload about `transaction` (its token nested in `data`).
    public func notification(_ type: String, subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(),
                             transaction: Members, environment: ReceiptParser.Environment, signedDate: Date = AppleSimulator.signedDate) -> Members {
        var data: Members = [
            ("bundleId", .string(bundleID)), ("environment", .string(environment == .production ? "Production" : "Sandbox")),
            ("signedTransactionInfo", .string(signer.sign(transaction))),
        ]
        if environment == .production { data.insert(("appAppleId", .number("1234567890")), at: 0) }
        var members: Members = [("notificationType", .string(type))]
        if let subtype { members.append(("subtype", .string(subtype))) }
        members += [("notificationUUID", .string(uuid)), ("data", .object(data)), ("version", .string("2.0")),
                    ("signedDate", .number(String(Int64(signedDate.timeIntervalSince1970 * 1000))))]
        return members
    }
}
