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
            var response = Response.jsonError(status: error.status, receiptStatus: error.receiptStatus, message: error.message)
            if error.status == .serviceUnavailable { response.headers[.retryAfter] = "1" }
            return response
        } catch let error as HTTPError {
            return Response.jsonError(status: error.status, receiptStatus: VerifyReceiptResponse.Status.malformed.rawValue,
                                      message: error.body ?? "\(error.status)")
        } catch {
            context.logger.error("unexpected error", metadata: ["error": .string("\(error)")])
            return Response.jsonError(status: .internalServerError, receiptStatus: VerifyReceiptResponse.Status.malformed.rawValue,
                                      message: "internal error")
        }
    }
}
