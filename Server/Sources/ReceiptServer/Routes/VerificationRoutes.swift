import Hummingbird

/// The receipt routes:
/// - `POST /verifyReceipt`: Apple's request body (`receipt-data`, optional `password`, which a
///   local server does not need, and `exclude-old-transactions`) → Apple's response format.
/// - `POST /v1/receipts`: a raw, base64 or request-body receipt → the full typed JSON.
struct VerificationRoutes {
    let service: ReceiptService

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let service = self.service

        routes.post("verifyReceipt") { request, context in
            let body = try await service.readBody(request)
            let logger = context.logger
            guard let answer = await service.gated(body, route: "verifyReceipt", { service.verifyReceipt(body: body, logger: logger) }) else {
                throw Refusal.busy(service.gate)
            }
            return Response.json(body: answer)
        }

        routes.post("v1/receipts") { request, context in
            let outcome = try await service.gatedVerification(of: request, context, route: "v1/receipts") { body, logger in
                let outcome = service.verify(body)
                service.log(outcome, route: "v1/receipts", logger: logger)
                return outcome
            }
            return try TypedResponse.response(for: outcome)
        }
        return routes
    }
}
