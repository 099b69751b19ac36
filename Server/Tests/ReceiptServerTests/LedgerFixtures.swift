import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import ReceiptTestSupport
import ServerTestSupport
import Testing
@testable import ReceiptServer

/// A server with an SQLite ledger in a temporary folder, its token, and requests to its routes.
enum LedgerFixtures {
    static let token = "test-ledger-token-0123456789"
    /// sample.receipt's purchases: two to credit, and one cancelled (refunded) that is never credited.
    static let sampleIds = ["2000000000000001", "2000000000000002"]
    static let sampleCancelledId = "2000000000000003"
    /// transaction-app-account-token.jws: not revoked, with an appAccountToken.
    static let jwsTransactionId = "2000000000000401"
    static let appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    /// `body` run against a server whose ledger is a new SQLite file (or the store `makeStore`
    /// opens at the path given), with the ledger beside it to query directly.
    static func withServer(
        metrics: ServerMetrics = ServerMetrics(),
        clock: @escaping @Sendable () -> Date = { Date() },
        makeStore: @Sendable (String) throws -> any LedgerStore = { try SQLiteLedgerStore(path: $0) },
        _ change: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol, Ledger) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory("ledger-routes") { directory in
            let ledger = Ledger(store: try makeStore(directory.appendingPathComponent("ledger.sqlite").path), now: clock)
            let server = ServerLedger(ledger: ledger, token: try LedgerToken(token))
            let app = buildApplication(try SignedDataFixtures.configuration(change), ledger: server, metrics: metrics, logger: ServerTests.logger)
            try await app.test(.live) { client in try await body(client, ledger) }
        }
    }

    /// The status, headers and JSON object of a request, with `Authorization: Bearer token`
    /// unless `authorization` says otherwise (nil: no header).
    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, body: String? = nil,
        authorization: String? = "Bearer \(token)"
    ) async throws -> (status: Int, json: [String: Any], headers: HTTPFields) {
        var headers = HTTPFields()
        if let authorization { headers[.authorization] = authorization }
        return try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            let json = (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))) as? [String: Any] ?? [:]
            return (Int(response.status.code), json, response.headers)
        }
    }

    /// `{"user":USER,"receipt-data":BASE64}` for a receipt fixture, with more members when given.
    static func receiptCredit(user: String, receipt: String = "sample.receipt", _ extra: String = "") throws -> String {
        "{\"user\":\(quoted(user)),\"receipt-data\":\"\(Data(try Paths.fixture(receipt)).base64EncodedString())\"\(extra)}"
    }

    /// `{"user":USER,"signedTransaction":JWS}` for a token fixture.
    static func tokenCredit(user: String, _ name: String = "transaction-app-account-token.jws", _ extra: String = "") throws -> String {
        "{\"user\":\(quoted(user)),\"signedTransaction\":\"\(try SignedDataFixtures.token(name))\"\(extra)}"
    }

    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: text, options: .fragmentsAllowed), as: UTF8.self)
    }

    /// A store capped at a few pages, for ``fill(_:)`` to fill.
    static func smallStore(_ path: String) throws -> any LedgerStore { try SQLiteLedgerStore(path: path, sparePages: 2) }

    /// Records bulky sightings until the database is full.
    static func fill(_ ledger: Ledger) async {
        for index in 0..<1_000 {
            let bulky = LedgerTransaction(transactionId: "fill-\(index)", productId: String(repeating: "p", count: 400),
                                          environment: "Sandbox", source: .receipt)
            do { try await ledger.record(seen: [bulky]) } catch { return }
        }
        Issue.record("the database never filled up")
    }

    static func ids(_ json: [String: Any], _ key: String) -> [String] { json[key] as? [String] ?? [] }
    static func rows(_ json: [String: Any], _ key: String) -> [[String: Any]] { json[key] as? [[String: Any]] ?? [] }
}
