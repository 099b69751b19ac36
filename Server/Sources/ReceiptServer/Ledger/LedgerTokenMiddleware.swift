import Hummingbird

/// In front of every ledger route: the bearer token, checked before the body is read; 401 with
/// `WWW-Authenticate: Bearer` otherwise.
struct LedgerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: LedgerToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[values: .authorization].count == 1, token.admits(authorization: request.headers[.authorization]) else {
            throw Refusal.unauthorized
        }
        return try await next(request, context)
    }
}
