import AppStoreServerAPI
import Foundation
import Hummingbird
import ReceiptLedger
import ReceiptParser

/// Healing from Apple, with a ledger (its Bearer token):
/// - `POST /v1/reconcile`: a reconcile cycle now → `{"applied","checkpoint","fetched","refused","repeats"}`.
/// - `GET /v1/reconcile`: the last cycle, the checkpoint, and when the next starts.
/// - `POST /v1/reconcile/transactions/{transactionId}`: the customer's history from Apple, every
///   transaction recorded as seen (what support runs when a customer says they paid).
/// Without App Store credentials they answer 404 `appStoreNotConfigured`, as the ledger's routes
/// answer 404 without a ledger.
struct ReconcileRoutes {
    let ledger: ServerLedger
    let reconciler: Reconciler?

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self).add(middleware: LedgerTokenMiddleware(token: ledger.token))
        let reconciler = self.reconciler
        let ledger = self.ledger.ledger

        routes.post("v1/reconcile") { _, _ in
            let cycle = try await Self.required(reconciler).cycle()
            return Response.json { json in
                json.beginObject()
                json.key("applied"); json.number(cycle.applied)
                json.key("checkpoint"); json.date(cycle.checkpoint)
                json.key("fetched"); json.number(cycle.fetched)
                json.key("refused"); json.number(cycle.refused)
                json.key("repeats"); json.number(cycle.repeats)
                json.endObject()
            }
        }

        routes.get("v1/reconcile") { _, _ in
            let reconciler = try Self.required(reconciler)
            let state: ReconcileState?
            do {
                state = try await ledger.reconcileState()
            } catch {
                throw Refusal(error)
            }
            return Response.json { json in
                json.beginObject()
                json.key("checkpoint"); if let checkpoint = state?.checkpoint { json.date(checkpoint) } else { json.null() }
                json.key("interval"); if let interval = reconciler.interval { json.number(Int64(interval)) } else { json.null() }
                json.key("last")
                if let state, let started = state.lastStarted {
                    json.beginObject()
                    json.key("applied"); json.number(state.lastApplied)
                    json.key("error"); if let error = state.lastError { json.string(error) } else { json.null() }
                    json.key("fetched"); json.number(state.lastFetched)
                    json.key("finished"); if let finished = state.lastFinished, finished >= started { json.date(finished) } else { json.null() }
                    json.key("refused"); json.number(state.lastRefused)
                    json.key("repeats"); json.number(state.lastRepeats)
                    json.key("started"); json.date(started)
                    json.endObject()
                } else {
                    json.null()
                }
                json.key("next"); if let next = reconciler.next { json.date(next) } else { json.null() }
                json.key("running"); json.bool(state?.leaseUntil.map { $0 > ledger.now() } ?? false)
                json.endObject()
            }
        }

        routes.post("v1/reconcile/transactions/:transactionId") { _, context in
            let id = try LedgerIdentifier.fromPath(context.parameters.get("transactionId"), member: "transactionId")
            let recorded = try await Self.required(reconciler).recordHistory(of: id)
            return Response.json { json in
                json.beginObject()
                json.key("recorded"); json.beginArray()
                for id in recorded { json.string(id) }
                json.endArray()
                json.key("transactionId"); json.string(id)
                json.endObject()
            }
        }
        return routes
    }

    static func required(_ reconciler: Reconciler?) throws -> Reconciler {
        guard let reconciler else {
            throw Refusal(.notFound, code: "appStoreNotConfigured",
                          reason: "the server has no App Store Server API credentials (--app-store-key-file, --app-store-key-id, --app-store-issuer-id)")
        }
        return reconciler
    }
}

extension Reconciler.Failure {
    /// The one refusal shape: 409 `reconcileRunning`, 502 `appStoreUnavailable` (Apple's words
    /// escaped), or the ledger's.
    var refusal: Refusal {
        switch self {
        case .running: Refusal(.conflict, code: "reconcileRunning", reason: Reconciler.describe(self))
        case .leaseLost: Refusal(.conflict, code: "reconcileLeaseLost", reason: Reconciler.describe(self))
        case .apple(let error): Refusal(.badGateway, code: "appStoreUnavailable", reason: error.description)
        case .ledger(let error): Refusal(error)
        }
    }
}
