import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import ReceiptLedger
import ReceiptParser

/// Builds the receipt server: routes, limits and logging around one shared ``ServerConfiguration``.
///
/// - `POST /verifyReceipt`: Apple's request body (`receipt-data`, optional `password`, which a
///   local server does not need, and `exclude-old-transactions`) → Apple's response format.
/// - `POST /v1/receipts`: a raw, base64 or request-body receipt → the full typed JSON.
/// - `POST /v2/notifications`: App Store Server Notifications V2 (`{"signedPayload": ...}`) →
///   200 only when the notification and its nested tokens verify, 400 otherwise.
/// - `POST /v1/transactions`: a transaction token or an App Store Server API answer → each
///   token's typed JSON.
/// - `GET /health` → `{"status":"ok"}`.
/// - `GET /` and `POST /`: a page where support staff paste a base64 receipt or signed data.
/// - With a `ledger`: the ledger routes (``ServerLedger/addRoutes(to:service:)``), notifications
///   recorded in it, and `POST /ledger`, the page's ledger lookup; without one they answer 404.
///
/// Verification runs under a ``VerificationGate``: off the event loops, at most
/// ``ServerConfiguration/maximumConcurrentVerifications`` at once; a request that waits longer
/// than ``ServerConfiguration/verificationTimeoutSeconds`` for its turn gets 503 with status
/// 21005. `/health` does not wait.
public func buildApplication(_ configuration: ServerConfiguration, ledger: ServerLedger? = nil, logger: Logger) -> some ApplicationProtocol {
    let service = ReceiptService(configuration: configuration)
    let router = Router()
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: RefusalMiddleware())

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
            throw Refusal.busy(service.gate)
        }
        return Response.json(body: answer)
    }

    router.post("v1/receipts") { request, context in
        try await gatedRoute("v1/receipts", request, context, service: service) { body, logger in
            let outcome = service.verify(body)
            service.log(outcome, route: "v1/receipts", logger: logger)
            return outcome
        } answer: { try TypedResponse.response(for: $0) }
    }

    router.post(RouterPath(ReceiptService.notificationsRoute)) { request, context in
        try await gatedRoute(ReceiptService.notificationsRoute, request, context, service: service) { body, logger in
            let outcome = service.verifyNotification(body: body)
            service.log(outcome, route: ReceiptService.notificationsRoute, logger: logger)
            return outcome
        } answer: { (outcome: SignedDataOutcome) in
            // Answered 503 when the ledger cannot record it, so that Apple sends it again.
            try await ledger?.record(notification: outcome)
            return try SignedDataResponse.notification(outcome)
        }
    }

    router.post("v1/transactions") { request, context in
        try await gatedRoute("v1/transactions", request, context, service: service) { body, logger in
            let outcome = service.verifyTransactions(body: body)
            service.log(outcome, route: "v1/transactions", logger: logger)
            return outcome
        } answer: { try SignedDataResponse.transactions($0) }
    }

    let ledgerSection = ledger == nil ? "" : SupportPage.ledgerSection(.form)
    router.get("/") { _, _ in
        html(SupportPage.render(nil, input: "", now: configuration.statusTime, signedDataVerifier: configuration.signedDataVerifier,
                                ledgerSection: ledgerSection))
    }

    router.post("/") { request, context in
        let body = try await readBody(request, limit: configuration.maximumBodySize)
        let pasted = try SupportPage.formValue(named: "receipt", in: body) ?? ""
        let input = Array(pasted.utf8)
        let logger = context.logger
        // The same router as receipt-dump's: a token or a JSON body of tokens, else a receipt.
        let result: SupportPage.Result? = await service.gated(body) {
            if SignedDataInput.isSignedData(input) {
                let outcome = service.inspectPasted(signedData: input)
                service.log(outcome, route: "page", logger: logger)
                return .signedData(outcome)
            }
            let outcome = service.verify(input)
            service.log(outcome, route: "page", logger: logger)
            return .receipt(outcome)
        }
        guard let result else { throw Refusal.busy(service.gate) }
        return html(SupportPage.render(result, input: pasted, now: configuration.statusTime,
                                       signedDataVerifier: configuration.signedDataVerifier, ledgerSection: ledgerSection))
    }

    if let ledger {
        ledger.addRoutes(to: router, service: service)
        router.post("ledger") { request, _ in
            let body = try await readBody(request, limit: configuration.maximumBodySize)
            let (status, lookup) = await ledger.lookUp(form: body)
            return html(SupportPage.render(nil, input: "", now: configuration.statusTime, signedDataVerifier: configuration.signedDataVerifier,
                                           ledgerSection: SupportPage.ledgerSection(lookup)), status: status)
        }
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

/// A route that verifies its body: read within the size limit, `verify` (which logs) run under
/// the verification gate, its outcome answered by `answer`; 503 with status 21005 when no slot
/// freed up in time.
private func gatedRoute<Outcome: Sendable>(
    _ route: String, _ request: Request, _ context: some RequestContext, service: ReceiptService,
    verify: @escaping @Sendable (_ body: [UInt8], _ logger: Logger) -> Outcome, answer: (Outcome) async throws -> Response
) async throws -> Response {
    let body = try await readBody(request, limit: service.configuration.maximumBodySize)
    let logger = context.logger
    guard let outcome = await service.gated(body, { verify(body, logger) }) else {
        throw Refusal.busy(service.gate)
    }
    return try await answer(outcome)
}

/// Reads the whole body, refusing more than `limit` bytes with 413 before reading them.
func readBody(_ request: Request, limit: Int) async throws -> [UInt8] {
    do {
        let buffer = try await request.body.collect(upTo: limit)
        return Array(buffer.readableBytesView)
    } catch is NIOTooManyBytesError {
        throw Refusal.bodyTooLarge(limit: limit)
    } catch let error as HTTPError where error.status == .contentTooLarge {
        throw Refusal.bodyTooLarge(limit: limit)
    }
}

/// The page has no scripts and no external assets; the policy says so to the browser, so that
/// markup that ever slipped through escaping could still not run or load anything.
func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "text/html; charset=utf-8",
                                    .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"],
             body: .init(byteBuffer: ByteBuffer(string: text)))
}
