import Hummingbird
import NIOCore

/// What operators and their tools ask of the server, answered on the event loop without waiting
/// for a verification slot:
/// - `GET /health` → `{"status":"ok"}`: liveness only.
/// - `GET /metrics`: Prometheus text (``ServerMetrics``).
struct OperationsRoutes {
    let metrics: ServerMetrics

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let metrics = self.metrics

        routes.get("health") { _, _ in
            Response.json { json in
                json.beginObject()
                json.member("status", "ok")
                json.endObject()
            }
        }

        routes.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        return routes
    }
}
