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
///
/// Verification runs under a ``VerificationGate``: off the event loops, at most
/// ``ServerConfiguration/maximumConcurrentVerifications`` at once; a request that waits longer
/// than ``ServerConfiguration/verificationTimeoutSeconds`` for its turn gets 503 with status
/// 21005. `/health` does not wait.
public func buildApplication(_ configuration: ServerConfiguration, logger: Logger) -> some ApplicationProtocol {
    let service = ReceiptService(configuration: configuration)
    let router = Router()
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: ErrorMiddleware())

    router.get("health") { _, _ in
        Response.json { json in
            json.beginObject()
            json.member("status", "ok")
            json.endObject()
        }
    }

    router.post("verifyReceipt") { request, context in
        let body = try await readBody(request, limit: configuration.maximumBodySize)
        let logger = context.logger
        guard let answer = await service.gated(body, { service.verifyReceipt(body: body, logger: logger) }) else {
            throw ServerError.busy(service.gate)
        }
        return Response.json(body: answer)
    }

    router.post("v1/receipts") { request, context in
        let body = try await readBody(request, limit: configuration.maximumBodySize)
        let logger = context.logger
        let outcome = await service.gated(body) {
            let outcome = service.verify(body)
            service.log(outcome, route: "v1/receipts", logger: logger)
            return outcome
        }
        guard let outcome else {
            logger.notice("request refused", metadata: ["route": "v1/receipts", "reason": "busy"])
            return TypedResponse.busy(service.gate)
        }
        return TypedResponse.response(for: outcome)
    }

    router.get("/") { _, _ in
        html(SupportPage.render(outcome: nil, input: "", now: configuration.statusTime))
    }

    router.post("/") { request, context in
        let body = try await readBody(request, limit: configuration.maximumBodySize)
        let pasted = try SupportPage.formValue(named: "receipt", in: body) ?? ""
        let logger = context.logger
        let outcome = await service.gated(body) {
            let outcome = service.verify(Array(pasted.utf8))
            service.log(outcome, route: "page", logger: logger)
            return outcome
        }
        guard let outcome else { throw ServerError.busy(service.gate) }
        return html(SupportPage.render(outcome: outcome, input: pasted, now: configuration.statusTime))
    }

    return Application(
        router: router,
        server: .http1(configuration: .init(idleTimeout: .seconds(configuration.idleTimeoutSeconds))),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "receipt-server",
            availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)
        ),
        services: [VerificationGateService(gate: service.gate)],
        logger: logger
    )
}

/// Reads the whole body, refusing more than `limit` bytes with 413 before reading them.
private func readBody(_ request: Request, limit: Int) async throws -> [UInt8] {
    do {
        let buffer = try await request.body.collect(upTo: limit)
        return Array(buffer.readableBytesView)
    } catch is NIOTooManyBytesError {
        throw ServerError(status: .contentTooLarge, receiptStatus: VerifyReceiptResponse.Status.malformed.rawValue, message: "request body larger than \(limit) bytes")
    } catch let error as HTTPError where error.status == .contentTooLarge {
        throw ServerError(status: .contentTooLarge, receiptStatus: VerifyReceiptResponse.Status.malformed.rawValue, message: "request body larger than \(limit) bytes")
    }
}

/// The page has no scripts and no external assets; the policy says so to the browser, so that
/// markup that ever slipped through escaping could still not run or load anything.
func html(_ text: String) -> Response {
    Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8",
                                    .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"],
             body: .init(byteBuffer: ByteBuffer(string: text)))
}
