import Hummingbird
import ReceiptLedger

/// In front of every ledger route: the bearer token first (401 with `WWW-Authenticate: Bearer`
/// otherwise, before the body is read), then the ledger's refusals as JSON errors.
struct LedgerMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: LedgerToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[values: .authorization].count == 1, token.admits(authorization: request.headers[.authorization]) else {
            context.logger.notice("request refused", metadata: ["route": .string(request.uri.path), "reason": "ledger token missing or wrong"])
            return LedgerRequestError(status: .unauthorized, code: "unauthorized", member: nil,
                                      reason: "the ledger routes require Authorization: Bearer and the ledger token").response
        }
        do {
            return try await next(request, context)
        } catch let error as LedgerRequestError {
            return error.response
        } catch let error as LedgerError {
            if case .storageUnavailable = error {
                context.logger.error("ledger unavailable", metadata: ["route": .string(request.uri.path), "error": .string(error.description)])
            }
            return LedgerRequestError(error).response
        }
    }
}
