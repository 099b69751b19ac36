import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import ReceiptParser

/// Builds the receipt server: routes, limits and logging around one shared ``ServerConfiguration``.
///
/// - `POST /verifyReceipt`: Apple's request body (`receipt-data`, optional `password`, which a
///   local server does not need, and `exclude-old-transactions`) → Apple's response format.
/// - `POST /v1/receipts`: a raw, base64 or request-body receipt → the full typed JSON.
/// - `GET /health` → `{"status":"ok"}`.
/// - `GET /` and `POST /`: a page where support staff paste a base64 receipt.
public func buildApplication(_ configuration: ServerConfiguration, logger: Logger) -> some ApplicationProtocol {
    let service = ReceiptService(configuration: configuration)
    let router = Router()
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: ErrorMiddleware())

    router.get("health") { _, _ in
        json(.object([("status", .string("ok"))]))
    }

    router.post("verifyReceipt") { request, context in
        let body = try await readBody(request, limit: configuration.maximumBodySize)
        return json(service.verifyReceipt(body: body, logger: context.logger))
    }

    router.post("v1/receipts") { request, context in
        let body = try await readBody(request, limit: configuration.maximumBodySize)
        let outcome = service.verify(body)
        service.log(outcome, route: "v1/receipts", logger: context.logger)
        return try TypedResponse.response(for: outcome)
    }

    router.get("/") { _, _ in
        html(SupportPage.render(outcome: nil, input: ""))
    }

    router.post("/") { request, context in
        let body = try await readBody(request, limit: configuration.maximumBodySize)
        let pasted = SupportPage.formValue(named: "receipt", in: body) ?? ""
        let outcome = service.verify(Array(pasted.utf8))
        service.log(outcome, route: "page", logger: context.logger)
        return html(SupportPage.render(outcome: outcome, input: pasted))
    }

    return Application(
        router: router,
        server: .http1(configuration: .init(idleTimeout: .seconds(configuration.idleTimeoutSeconds))),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "receipt-server",
            availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)
        ),
        logger: logger
    )
}

/// Reads the whole body, refusing more than `limit` bytes with 413 before reading them.
private func readBody(_ request: Request, limit: Int) async throws -> [UInt8] {
    do {
        let buffer = try await request.body.collect(upTo: limit)
        return Array(buffer.readableBytesView)
    } catch is NIOTooManyBytesError {
        throw ServerError(status: .contentTooLarge, receiptStatus: .malformed, message: "request body larger than \(limit) bytes")
    } catch let error as HTTPError where error.status == .contentTooLarge {
        throw ServerError(status: .contentTooLarge, receiptStatus: .malformed, message: "request body larger than \(limit) bytes")
    }
}

func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
             body: .init(byteBuffer: ByteBuffer(string: value.rendered())))
}

func html(_ text: String) -> Response {
    Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
             body: .init(byteBuffer: ByteBuffer(string: text)))
}

/// A failure answered as JSON with a verifyReceipt status, never as an HTML error page.
struct ServerError: Error {
    let status: HTTPResponse.Status
    let receiptStatus: VerifyReceiptResponse.Status
    let message: String
}

/// Turns every error, ours or the framework's (unknown route, wrong method), into JSON.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServerError {
            context.logger.notice("request refused", metadata: ["reason": .string(error.message)])
            return json(.object([("status", .number(error.receiptStatus.rawValue)), ("error", .string(error.message))]),
                        status: error.status)
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
