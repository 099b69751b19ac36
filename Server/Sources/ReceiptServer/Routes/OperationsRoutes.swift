import Foundation
import Hummingbird
import NIOCore

/// What operators and their tools ask of the server, answered on the event loop without waiting
/// for a verification slot:
/// - `GET /health` → `{"status":"ok"}`: liveness only.
/// - `GET /health/ready` → `{"status":"ready"}`, or 503 with the reason when the ledger's
///   database cannot be reached within the deadline (``Readiness``).
/// - `GET /metrics`: Prometheus text (``ServerMetrics``).
/// - `GET /openapi.yaml`: the OpenAPI 3.1 document of every route (`openapi.yaml`, this
///   target's resource), read once when the routes are built.
struct OperationsRoutes {
    let metrics: ServerMetrics
    let readiness: Readiness

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let metrics = self.metrics
        let readiness = self.readiness
        let document = Self.openAPIDocument()

        routes.get("health") { _, _ in
            Response.json { json in
                json.beginObject()
                json.member("status", "ok")
                json.endObject()
            }
        }

        routes.get("health/ready") { _, context in
            if let refusal = await readiness.check(logger: context.logger) { throw refusal }
            return Response.json { json in
                json.beginObject()
                json.member("status", "ready")
                json.endObject()
            }
        }

        routes.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        routes.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: document))
        }
        return routes
    }

    /// The checked-in document, as the package ships it beside the binary.
    static func openAPIDocument() -> ByteBuffer {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"), let data = try? Data(contentsOf: url) else {
            preconditionFailure("openapi.yaml is missing from the ReceiptServer resources")
        }
        return ByteBuffer(bytes: data)
    }
}
