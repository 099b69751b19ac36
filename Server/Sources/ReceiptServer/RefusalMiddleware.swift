import Hummingbird
import Logging
import ReceiptLedger

/// Answers whatever a route throws, ours or the framework's (no such route, a method the route
/// does not take), as a ``Refusal``: one JSON shape on every route, never an HTML error page.
struct RefusalMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let refusal = Refusal(error)
            // The route pattern, never the request's path: the path is the client's text.
            let route = ServerMetrics.routeLabel(context.endpointPath)
            if refusal.code == "internalError" {
                context.logger.error("request failed", metadata: ["route": .string(route), "error": .string("\(error)")])
            } else if case .storageUnavailable? = error as? LedgerError {
                context.logger.error("ledger unavailable", metadata: ["route": .string(route), "error": .string("\(error)")])
            } else {
                context.logger.notice("request refused", metadata: ["route": .string(route), "code": .string(refusal.code)])
            }
            return refusal.response
        }
    }
}
