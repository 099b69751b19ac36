import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import ReceiptTestSupport
import Testing
@testable import ReceiptServer

/// `GET /metrics`: Prometheus text from the application's own registry, with bounded labels.
struct MetricsTests {
    /// The value of the sample `name{labels}` in `text`, nil when it is not there.
    static func sample(_ text: String, _ name: String, _ labels: String = "") -> Double? {
        let prefix = labels.isEmpty ? "\(name) " : "\(name){\(labels)} "
        return text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }).flatMap { Double($0.dropFirst(prefix.count)) }
    }

    static func metrics(_ client: some TestClientProtocol) async throws -> String {
        try await client.execute(uri: "/metrics", method: .get) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
            return String(buffer: response.body)
        }
    }

    @Test func requestsAndVerificationsAreCountedByRouteAndCode() async throws {
        let metrics = ServerMetrics()
        let app = buildApplication(try ServerTests.testRootConfiguration(), metrics: metrics, logger: ServerTests.logger)
        try await app.test(.live) { client in
            let tests = ServerTests()
            for _ in 0..<2 { try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) } }
            try await client.execute(uri: "/verifyReceipt", method: .post, body: tests.requestBody(Paths.fixture("sample.receipt"))) { _ in }
            try await client.execute(uri: "/verifyReceipt", method: .post, body: tests.requestBody(Paths.fixture("tampered-signature.receipt"))) { _ in }
            try await client.execute(uri: "/v1/receipts", method: .post, body: ByteBuffer(string: "x")) { #expect($0.status == .unprocessableContent) }
            // Paths no route matches are one label, whatever the client sends.
            for path in ["/no-such-route", "/%3Cscript%3E", "/a/b/c?d=e"] {
                try await client.execute(uri: path, method: .get) { #expect($0.status == .notFound) }
            }
            let text = try await Self.metrics(client)
            #expect(Self.sample(text, "receipt_server_http_requests_total", #"route="/health",method="GET",status="200""#) == 2)
            #expect(Self.sample(text, "receipt_server_http_requests_total", #"route="/verifyReceipt",method="POST",status="200""#) == 2)
            #expect(Self.sample(text, "receipt_server_http_requests_total", #"route="/v1/receipts",method="POST",status="422""#) == 1)
            #expect(Self.sample(text, "receipt_server_http_requests_total", #"route="unmatched",method="GET",status="404""#) == 3)
            #expect(Self.sample(text, "receipt_server_verifications_total", #"route="verifyReceipt",code="verified""#) == 1)
            #expect(Self.sample(text, "receipt_server_verifications_total", #"route="verifyReceipt",code="signatureInvalid""#) == 1)
            #expect(Self.sample(text, "receipt_server_verifications_total", #"route="v1/receipts",code="notBase64""#) == 1)
            #expect(Self.sample(text, "receipt_server_verification_duration_seconds_count", #"route="verifyReceipt""#) == 2)
            #expect(Self.sample(text, "receipt_server_verification_duration_seconds_count", #"route="v1/receipts""#) == 1)
            #expect(text.contains("# TYPE receipt_server_verification_duration_seconds histogram"))
            // No value from a request became a label.
            #expect(!text.contains("script") && !text.contains("no-such-route") && !text.contains("/a/b"))
        }
        // A registry per application: another server starts from nothing.
        let other = ServerMetrics()
        try await buildApplication(try ServerTests.testRootConfiguration(), metrics: other, logger: ServerTests.logger).test(.live) { client in
            let text = try await Self.metrics(client)
            #expect(Self.sample(text, "receipt_server_http_requests_total", #"route="/health",method="GET",status="200""#) == nil)
        }
    }

    @Test func methodsOutsideTheRoutesAreOneLabel() async throws {
        let metrics = ServerMetrics()
        try await buildApplication(try ServerTests.testRootConfiguration(), metrics: metrics, logger: ServerTests.logger).test(.live) { client in
            try await client.execute(uri: "/health", method: .delete) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/health", method: .options) { #expect($0.status == .notFound) }
            let text = metrics.exposition()
            #expect(!text.contains("DELETE") && !text.contains("OPTIONS"))
            #expect(Self.sample(text, "receipt_server_http_requests_total", #"route="unmatched",method="other",status="404""#) == 2)
        }
    }

    @Test func theGateCountsWaitsAndRefusals() async throws {
        let started = VerificationGateTests.Arrivals()
        let metrics = ServerMetrics()
        let configuration = try ServerTests.testRootConfiguration(VerificationGateTests.oneSlot(heldFor: 1.5, timeout: 0.25, recordingIn: started))
        try await buildApplication(configuration, metrics: metrics, logger: ServerTests.logger).test(.live) { client in
            async let expensive = VerificationGateTests.send(client.port, "/verifyReceipt", body: VerificationGateTests.expensiveBody)
            _ = try await started.wait(for: 1)
            let refused = try await VerificationGateTests.send(client.port, "/verifyReceipt", body: ByteBuffer(string: "{}"))
            #expect(refused.head.status == .serviceUnavailable)
            _ = try await expensive
            let text = metrics.exposition()
            #expect(Self.sample(text, "receipt_server_gate_waits_total") == 1)
            #expect(Self.sample(text, "receipt_server_gate_refusals_total") == 1)
            #expect(Self.sample(text, "receipt_server_http_requests_total", #"route="/verifyReceipt",method="POST",status="503""#) == 1)
        }
    }

    @Test func ledgerOperationsAndStorageFailuresAreCounted() async throws {
        let metrics = ServerMetrics()
        try await LedgerFixtures.withServer(metrics: metrics) { client, _ in
            let credit = try await LedgerFixtures.send(client, .post, "/v1/credits", body: try LedgerFixtures.receiptCredit(user: "alice"))
            #expect(credit.status == 200)
            let bad = try await LedgerFixtures.send(client, .get, "/v1/revoked?limit=0")
            #expect(bad.status == 400)
            let listed = try await LedgerFixtures.send(client, .get, "/v1/users/alice/credits")
            #expect(listed.status == 200)
            let text = metrics.exposition()
            #expect(Self.sample(text, "receipt_server_ledger_operations_total", #"operation="credit",outcome="ok""#) == 1)
            #expect(Self.sample(text, "receipt_server_ledger_operations_total", #"operation="credits",outcome="ok""#) == 1)
            #expect(Self.sample(text, "receipt_server_ledger_storage_failures_total") == 0)
            #expect(!text.contains("alice"))
        }
        let failing = ServerMetrics()
        try await LedgerFixtures.withServer(metrics: failing, makeStore: LedgerFixtures.smallStore) { client, ledger in
            await LedgerFixtures.fill(ledger)
            let answer = try await LedgerFixtures.send(client, .post, "/v1/credits", body: try LedgerFixtures.receiptCredit(user: "alice"))
            #expect(answer.status == 503)
            let text = failing.exposition()
            #expect(Self.sample(text, "receipt_server_ledger_operations_total", #"operation="credit",outcome="storageUnavailable""#) == 1)
            #expect(Self.sample(text, "receipt_server_ledger_storage_failures_total") == 1)
        }
    }
}
