import Hummingbird

/// Counts every answered request by route pattern, method and status (``ServerMetrics``). It
/// runs outside ``RefusalMiddleware``, so refusals are counted with the status they are answered
/// with.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            metrics.countRequest(route: context.endpointPath, method: request.method, status: response.status)
            return response
        } catch {
            metrics.countRequest(route: context.endpointPath, method: request.method, status: Refusal(error).status)
            throw error
        }
    }
}
