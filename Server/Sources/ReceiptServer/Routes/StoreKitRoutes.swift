import Hummingbird
import ReceiptLedger

/// The StoreKit 2 routes:
/// - `POST /v2/notifications`: App Store Server Notifications V2 (`{"signedPayload": ...}`) →
///   200 only when the notification and its nested tokens verify, 400 otherwise; with a ledger,
///   recorded in it (503 when it cannot be, so that Apple sends it again; 422 `unstorableText`
///   when it holds text the ledger refuses to store).
/// - `POST /v1/transactions`: a transaction token or an App Store Server API answer → each
///   token's typed JSON.
struct StoreKitRoutes {
    let service: ReceiptService
    let ledger: ServerLedger?

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        let service = self.service
        let ledger = self.ledger

        routes.post(RouterPath(ReceiptService.notificationsRoute)) { request, context in
            let outcome = try await service.gatedVerification(of: request, context, route: ReceiptService.notificationsRoute) { body, logger in
                let outcome = service.verifyNotification(body: body)
                service.log(outcome, route: ReceiptService.notificationsRoute, logger: logger)
                return outcome
            }
            if let ledger {
                try await service.metrics.ledgerOperation("recordNotification") { () async throws(LedgerError) in
                    try await ledger.record(notification: outcome)
                }
            }
            return try SignedDataResponse.notification(outcome)
        }

        routes.post("v1/transactions") { request, context in
            let outcome = try await service.gatedVerification(of: request, context, route: "v1/transactions") { body, logger in
                let outcome = service.verifyTransactions(body: body)
                service.log(outcome, route: "v1/transactions", logger: logger)
                return outcome
            }
            return try SignedDataResponse.transactions(outcome)
        }
        return routes
    }
}
