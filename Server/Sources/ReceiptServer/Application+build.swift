import AppStoreServerAPI
import Hummingbird
import HummingbirdCore
import Logging

/// The request context of every route.
typealias AppRequestContext = BasicRequestContext

/// Builds the receipt server: its router (``buildRouter(service:ledger:)``), limits and logging
/// around one shared ``ServerConfiguration``, and the services that run beside it.
///
/// Verification runs under a ``VerificationGate``: off the event loops, at most
/// ``ServerConfiguration/maximumConcurrentVerifications`` at once; a request that waits longer
/// than ``ServerConfiguration/verificationTimeoutSeconds`` for its turn gets 503 with status
/// 21005. `/health` does not wait.
///
/// - Parameter metrics: where the server counts, served at `GET /metrics`; one registry per
///   application, so that tests read the metrics of the server they started.
public func buildApplication(_ configuration: ServerConfiguration, ledger: ServerLedger? = nil, metrics: ServerMetrics = ServerMetrics(),
                             logger: Logger) -> some ApplicationProtocol {
    let service = ReceiptService(configuration: configuration, metrics: metrics)
    let reconciler = ledger.flatMap { ledger in
        ledger.appStore.map { settings in
            // The request budget is the ledger's: several servers on it share Apple's limits.
            Reconciler(client: AppStoreServerAPIClient(configuration: settings.client, budget: LedgerRequestBudget(ledger: ledger.ledger)),
                       ledger: ledger.ledger, service: service,
                       interval: settings.reconcileInterval, since: settings.reconcileSince,
                       setsAppAccountTokens: settings.setsAppAccountTokens, logger: logger)
        }
    }
    return Application(
        router: buildRouter(service: service, ledger: ledger, reconciler: reconciler),
        server: .http1(configuration: .init(idleTimeout: .seconds(configuration.idleTimeoutSeconds))),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "receipt-server",
            availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)
        ),
        services: [VerificationGateService(gate: service.gate)] + (ledger?.services ?? []) + (reconciler.map { [$0] } ?? []),
        logger: logger
    )
}

/// Every route, grouped by what it serves:
/// - ``OperationsRoutes``: `GET /health`, `GET /health/ready` and `GET /metrics`.
/// - ``VerificationRoutes``: `POST /verifyReceipt` (Apple's format) and `POST /v1/receipts`.
/// - ``StoreKitRoutes``: `POST /v2/notifications` and `POST /v1/transactions`.
/// - ``PageRoutes``: the support page, `GET /` and `POST /`, and `POST /ledger` with a ledger.
/// - ``LedgerRoutes``, with a ledger: `/v1/credits`, `/v1/users/...`, the listings; without one
///   they answer 404.
/// - ``ReconcileRoutes`` and ``OfferRoutes``, with a ledger: `/v1/reconcile...`, healing from
///   Apple, and `/v1/offers/...`, StoreKit's offer signatures (404 without App Store credentials).
///
/// Whatever a route throws is answered by ``RefusalMiddleware`` as a ``Refusal``; every answer
/// is counted by ``RequestMetricsMiddleware``.
func buildRouter(service: ReceiptService, ledger: ServerLedger?, reconciler: Reconciler? = nil) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: RequestMetricsMiddleware(metrics: service.metrics))
    router.add(middleware: RefusalMiddleware())
    router.addRoutes(OperationsRoutes(metrics: service.metrics, readiness: Readiness(ledger: ledger?.ledger)).routes)
    router.addRoutes(VerificationRoutes(service: service).routes)
    router.addRoutes(StoreKitRoutes(service: service, ledger: ledger).routes)
    router.addRoutes(PageRoutes(service: service, ledger: ledger, reconciler: reconciler).routes)
    if let ledger {
        router.addRoutes(LedgerRoutes(service: service, ledger: ledger, reconciler: reconciler).routes)
        router.addRoutes(ReconcileRoutes(ledger: ledger, reconciler: reconciler).routes)
        router.addRoutes(OfferRoutes(service: service, ledger: ledger).routes)
    }
    return router
}
