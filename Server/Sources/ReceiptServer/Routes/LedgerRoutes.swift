import Foundation
import Hummingbird
import ReceiptLedger

/// The credit ledger's routes, each behind the ledger token (``LedgerTokenMiddleware``):
/// - `POST /v1/credits`: verify a receipt or a transaction, record it, credit a user.
/// - `PUT /v1/users/{user}`: bind a user to the appAccountToken their app sets.
/// - `GET /v1/uncredited?olderThan=SECONDS&limit=N`: the missed orders.
/// - `GET /v1/users/{user}/credits?limit=N`: a user's credits.
/// - `GET /v1/revoked?limit=N`: credits whose transaction was refunded or revoked.
/// - `GET /v1/users/{user}/entitlements?at=T`: every subscription and non-consumable the user owns.
/// - `GET /v1/subscriptions/{originalTransactionId}?at=T`: one subscription, and its owner.
/// - `GET /v1/notifications?originalTransactionId=ID&limit=N`: the notifications received, each once.
/// - `GET /v1/webhooks/failed?limit=N`: webhook events whose last try failed.
/// - `POST /v1/webhooks/{id}/retry`: sends a failed event again.
struct LedgerRoutes {
    let service: ReceiptService
    let ledger: ServerLedger
    /// With `--set-app-account-tokens`, told of each credit.
    var reconciler: Reconciler? = nil

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self).add(middleware: LedgerTokenMiddleware(token: ledger.token))
        let service = self.service
        let ledger = self.ledger.ledger
        let metrics = service.metrics
        let reconciler = self.reconciler

        routes.post(RouterPath(ReceiptService.creditsRoute)) { request, context in
            let body = try await service.readBody(request)
            let credit = try CreditRequest(body: body)
            let logger = context.logger
            guard let verification = await service.gated(body, route: ReceiptService.creditsRoute, { service.verifyCredit(credit, logger: logger) }) else {
                throw Refusal.busy(service.gate)
            }
            // A refused input touches nothing: only verified transactions reach the ledger.
            guard let transactions = verification.transactions else { throw verification.refusal! }
            let outcome = try await metrics.ledgerOperation("credit") { () async throws(LedgerError) in
                try await ledger.credit(user: credit.user, transactions: transactions, requested: credit.transactionId)
            }
            if let reconciler {
                let credited = Set(outcome.credited)
                reconciler.requestAppAccountTokens(user: credit.user, credited: transactions.filter { credited.contains($0.transactionId) })
            }
            return LedgerResponse.credit(outcome, user: credit.user)
        }

        routes.put("v1/users/:user") { request, context in
            let user = try LedgerIdentifier.fromPath(context.parameters.get("user"))
            let body = try await service.readBody(request)
            let token = try AppAccountTokenBinding.appAccountToken(in: body)
            try await metrics.ledgerOperation("bind") { () async throws(LedgerError) in try await ledger.bind(user: user, appAccountToken: token) }
            return LedgerResponse.binding(user: user, appAccountToken: token.uuidString.lowercased())
        }

        routes.get("v1/uncredited") { request, _ in
            let query = try LedgerQuery(request.uri, accepting: [.limit, .olderThan])
            let rows = try await metrics.ledgerOperation("uncredited") { () async throws(LedgerError) in
                try await ledger.uncredited(olderThan: TimeInterval(query.olderThanSeconds), limit: query.limit)
            }
            return LedgerResponse.uncredited(rows)
        }

        routes.get("v1/users/:user/credits") { request, context in
            let user = try LedgerIdentifier.fromPath(context.parameters.get("user"))
            let query = try LedgerQuery(request.uri, accepting: [.limit])
            let credits = try await metrics.ledgerOperation("credits") { () async throws(LedgerError) in
                try await ledger.credits(of: user, limit: query.limit)
            }
            return LedgerResponse.credits(credits, listedAs: "credits", user: user)
        }

        routes.get("v1/revoked") { request, _ in
            let query = try LedgerQuery(request.uri, accepting: [.limit])
            let revoked = try await metrics.ledgerOperation("revoked") { () async throws(LedgerError) in
                try await ledger.revokedCredits(limit: query.limit)
            }
            return LedgerResponse.credits(revoked, listedAs: "revoked")
        }

        routes.get("v1/users/:user/entitlements") { request, context in
            let user = try LedgerIdentifier.fromPath(context.parameters.get("user"))
            let instant = try LedgerQuery(request.uri, accepting: [.at]).at ?? ledger.now()
            let entitlements = try await metrics.ledgerOperation("entitlements") { () async throws(LedgerError) in
                try await ledger.entitlements(of: user, at: instant)
            }
            return LedgerResponse.entitlements(entitlements, user: user, at: instant)
        }

        routes.get("v1/subscriptions/:originalTransactionId") { request, context in
            let id = try LedgerIdentifier.fromPath(context.parameters.get("originalTransactionId"), member: "originalTransactionId")
            let instant = try LedgerQuery(request.uri, accepting: [.at]).at ?? ledger.now()
            let (state, owner) = try await metrics.ledgerOperation("subscription") { () async throws(LedgerError) in
                (try await ledger.subscription(originalTransactionId: id, at: instant), try await ledger.owner(ofSubscription: id))
            }
            guard let state else {
                throw Refusal(.notFound, code: "notFound", reason: "the ledger holds no subscription or non-consumable with this original transaction id",
                              member: "originalTransactionId")
            }
            return LedgerResponse.subscription(state, owner: owner)
        }

        routes.get("v1/notifications") { request, _ in
            let query = try LedgerQuery(request.uri, accepting: [.originalTransactionId, .limit])
            let logged = try await metrics.ledgerOperation("notifications") { () async throws(LedgerError) in
                try await ledger.notifications(originalTransactionId: query.originalTransactionId, limit: query.limit)
            }
            return LedgerResponse.notifications(logged)
        }

        routes.get("v1/webhooks/failed") { request, _ in
            let query = try LedgerQuery(request.uri, accepting: [.limit])
            let failed = try await metrics.ledgerOperation("failedWebhooks") { () async throws(LedgerError) in
                try await ledger.failedWebhookEvents(limit: query.limit)
            }
            return LedgerResponse.failedWebhooks(failed)
        }

        routes.post("v1/webhooks/:id/retry") { _, context in
            let id = try LedgerIdentifier.fromPath(context.parameters.get("id"), member: "id")
            let retried = try await metrics.ledgerOperation("retryWebhook") { () async throws(LedgerError) in
                try await ledger.retryWebhookEvent(id)
            }
            guard retried else {
                throw Refusal(.notFound, code: "notFound", reason: "no failed webhook event has this id", member: "id")
            }
            return LedgerResponse.webhookRetried(id: id)
        }
        return routes
    }
}
