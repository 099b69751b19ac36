import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import ReceiptParser

/// Turns every error, ours or the framework's (unknown route, wrong method), into JSON.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServerError {
            context.logger.notice("request refused", metadata: ["reason": .string(error.message)])
            var response = json(.object([("status", .number(error.receiptStatus)), ("error", .string(error.message))]),
                                status: error.status)
            if error.status == .serviceUnavailable { response.headers[.retryAfter] = "1" }
            return response
        } catch let error as HTTPError {
            return json(.object([("status", .number(VerifyReceiptResponse.Status.malformed.rawValue)),
                                 ("error", .string(error.body ?? "\(error.status)"))]),
                        status: error.status)
        } catch {
            context.logger.error("unexpected error", metadata: ["error": .string("\(error)")])
            return json(.object([("status", .number(VerifyReceiptResponse.Status.malformed.rawValue)),
                                 ("error", .string("internal error"))]),
                        status: .internalServerError)
        }
    }
}
