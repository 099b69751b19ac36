import Hummingbird

/// `GET /health` → `{"status":"ok"}`: liveness only, answered on the event loop without waiting
/// for a verification slot.
struct HealthRoutes {
    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.get("health") { _, _ in
            Response.json { json in
                json.beginObject()
                json.member("status", "ok")
                json.endObject()
            }
        }
        return routes
    }
}
