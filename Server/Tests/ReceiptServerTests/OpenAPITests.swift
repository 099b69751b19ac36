import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import ReceiptTestSupport
import Testing
import Yams
@testable import ReceiptServer

/// The OpenAPI document (Sources/ReceiptServer/openapi.yaml) against the router and the answers.
struct OpenAPITests {
    typealias Document = [String: Any]

    static let file = Paths.repository.appendingPathComponent("Server/Sources/ReceiptServer/openapi.yaml")

    static func document() throws -> Document {
        try #require(try Yams.load(yaml: String(contentsOf: file, encoding: .utf8)) as? Document)
    }

    /// Every (method, path) the document describes, as `GET /v1/revoked`.
    static func operations(_ document: Document) -> [String: Document] {
        var operations: [String: Document] = [:]
        for (path, item) in document["paths"] as? [String: Any] ?? [:] {
            for (method, operation) in item as? [String: Any] ?? [:] where ["get", "post", "put", "delete", "patch", "head"].contains(method) {
                operations["\(method.uppercased()) \(path)"] = operation as? Document
            }
        }
        return operations
    }

    /// An operation's responses by status, `$ref`s to components resolved.
    static func responses(_ operation: Document, in document: Document) -> [String: Document] {
        let components = (document["components"] as? Document)?["responses"] as? Document ?? [:]
        var resolved: [String: Document] = [:]
        for (status, response) in operation["responses"] as? Document ?? [:] {
            guard var response = response as? Document else { continue }
            if let ref = response["$ref"] as? String, let name = ref.split(separator: "/").last {
                response = components[String(name)] as? Document ?? [:]
            }
            resolved[status] = response
        }
        return resolved
    }

    /// A server with every route (the ledger's too).
    static func withEveryRoute(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await LedgerFixtures.withServer({ $0.maximumBodySize = 512 }) { client, _ in try await body(client) }
    }

    @Test func theRouterAndTheDocumentHaveTheSameRoutes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = ServerLedger(ledger: Ledger(store: try SQLiteLedgerStore(path: directory.appendingPathComponent("l.sqlite").path)),
                                  token: try LedgerToken(LedgerFixtures.token))
        let router = buildRouter(service: ReceiptService(configuration: try ServerTests.testRootConfiguration()), ledger: ledger)
        let routed = Set(router.routes.map { "\($0.method) \($0.path)" })
        let documented = Set(Self.operations(try Self.document()).keys)
        #expect(routed.subtracting(documented).isEmpty, "routes the document lacks: \(routed.subtracting(documented).sorted())")
        #expect(documented.subtracting(routed).isEmpty, "documented routes the router lacks: \(documented.subtracting(routed).sorted())")
        #expect(routed.count >= 15)
    }

    @Test func theDocumentIsServedAsCheckedIn() async throws {
        try await buildApplication(try ServerTests.testRootConfiguration(), logger: ServerTests.logger).test(.live) { client in
            try await client.execute(uri: "/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
                let file = try Data(contentsOf: Self.file)
                #expect(Array(response.body.readableBytesView) == Array(file))
            }
        }
    }

    /// Every JSON answer other than 2xx is documented as a Refusal, on every route.
    @Test func everyDocumentedRefusalIsTheOneShape() throws {
        let document = try Self.document()
        for (name, operation) in Self.operations(document) {
            for (status, response) in Self.responses(operation, in: document) where !status.hasPrefix("2") {
                guard let content = response["content"] as? Document, let json = content["application/json"] as? Document else { continue }
                let schema = json["schema"] as? Document
                #expect(schema?["$ref"] as? String == "#/components/schemas/Refusal", "\(name) \(status)")
            }
        }
    }

    /// Walks the document's routes and draws a refusal from each that documents one: without the
    /// ledger token, with a body over the limit, with a query parameter it does not take, or with
    /// a ledger that is down; each answer's status is documented for the route and its body is the
    /// one shape.
    @Test func eachRouteRefusesInTheOneShape() async throws {
        let document = try Self.document()
        let operations = Self.operations(document)
        final class Answers: @unchecked Sendable {
            let lock = NSLock()
            var all: [(String, Int, [String: Any])] = []
            func add(_ name: String, _ answer: (status: Int, json: [String: Any], headers: HTTPFields)) {
                lock.withLock { all.append((name, answer.status, answer.json)) }
            }
        }
        let collected = Answers()
        let plan = operations.map { name, operation in
            (name: name, secured: operation["security"] != nil, takesParameters: operation["parameters"] != nil)
        }
        try await Self.withEveryRoute { client in
            for (name, secured, takesParameters) in plan {
                let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
                let method = HTTPRequest.Method(rawValue: parts[0])!
                let path = parts[1].replacingOccurrences(of: "{user}", with: "alice").replacingOccurrences(of: "{originalTransactionId}", with: "1000").replacingOccurrences(of: "{id}", with: "msg_1").replacingOccurrences(of: "{transactionId}", with: "1")
                if secured {
                    collected.add(name, try await LedgerFixtures.send(client, method, path, body: "{}", authorization: nil))
                }
                if method == .post || method == .put {
                    collected.add(name, try await LedgerFixtures.send(client, method, path, body: String(repeating: "A", count: 600)))
                }
                if method == .get, takesParameters {
                    collected.add(name, try await LedgerFixtures.send(client, method, path + "?unknown=1"))
                }
            }
        }
        let gets = plan.map(\.name).filter { $0.hasPrefix("GET ") }
        try await LedgerFixtures.withServer(makeStore: { _ in ReadinessTests.BrokenStore(hangs: false) }) { client, _ in
            for name in gets {
                let path = String(name.dropFirst(4)).replacingOccurrences(of: "{user}", with: "alice").replacingOccurrences(of: "{originalTransactionId}", with: "1000").replacingOccurrences(of: "{id}", with: "msg_1").replacingOccurrences(of: "{transactionId}", with: "1")
                let answer = try await LedgerFixtures.send(client, .get, path)
                if answer.status >= 400 { collected.add(name, answer) }
            }
        }
        let answers = collected.all
        var refused = Set<String>()
        for (name, status, json) in answers {
            let documented = Self.responses(operations[name]!, in: document)
            #expect(documented[String(status)] != nil, "\(name) answered \(status), which its document does not list")
            #expect(status >= 400, "\(name) answered \(status)")
            #expect(RefusalShape.problem(json) == nil, "\(name) \(status): \(RefusalShape.problem(json) ?? "")")
            refused.insert(name)
        }
        // Every route that documents a JSON refusal gave one.
        for (name, operation) in operations {
            let refuses = Self.responses(operation, in: document).contains { status, response in
                !status.hasPrefix("2") && (response["content"] as? Document)?["application/json"] != nil
            }
            if refuses { #expect(refused.contains(name), "\(name) documents refusals but the walk drew none") }
        }
    }
}
