import Foundation
import Hummingbird
import ReceiptLedger
import ReceiptParser

/// The ledger routes' answers: compact JSON with sorted keys, as the other routes write it; dates
/// in RFC 3339 with milliseconds, as StoreKit dates are written; absent values left out.
enum LedgerResponse {
    /// `POST /v1/credits`: `{"alreadyCredited":[ID…],"conflicts":[ID…],"credited":[ID…],"revoked":[ID…],"user":USER}`.
    static func credit(_ outcome: CreditOutcome, user: String) -> Response {
        Response.json { json in
            json.beginObject()
            json.member("alreadyCredited", ids: outcome.alreadyCredited)
            json.member("conflicts", ids: outcome.conflicts)
            json.member("credited", ids: outcome.credited)
            json.member("revoked", ids: outcome.revoked)
            json.member("user", user)
            json.endObject()
        }
    }

    /// `PUT /v1/users/{user}`: `{"appAccountToken":UUID,"user":USER}`, the UUID lowercased as stored.
    static func binding(user: String, appAccountToken: String) -> Response {
        Response.json { json in
            json.beginObject()
            json.member("appAccountToken", appAccountToken)
            json.member("user", user)
            json.endObject()
        }
    }

    /// `GET /v1/uncredited`: `{"uncredited":[{transactionId, originalTransactionId, productId,
    /// bundleId, environment, purchaseDate, expiresDate, firstSeenAt, source, revokedAt,
    /// revocationReason}…]}`, oldest first.
    static func uncredited(_ rows: [SeenTransaction]) -> Response {
        Response.json { json in
            json.beginObject()
            json.key("uncredited")
            json.beginArray()
            for row in rows {
                let transaction = row.transaction
                json.beginObject()
                json.member("bundleId", transaction.bundleId)
                json.member("environment", transaction.environment)
                json.member("expiresDate", milliseconds: transaction.expiresDate)
                json.member("firstSeenAt", milliseconds: row.firstSeenAt)
                json.member("originalTransactionId", transaction.originalTransactionId)
                json.member("productId", transaction.productId)
                json.member("purchaseDate", milliseconds: transaction.purchaseDate)
                json.member("revocationReason", row.revocationReason)
                json.member("revokedAt", milliseconds: row.revokedAt)
                json.member("source", transaction.source.rawValue)
                json.member("transactionId", transaction.transactionId)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
    }

    /// `GET /v1/users/{user}/credits` (`{"credits":[…],"user":USER}`) and `GET /v1/revoked`
    /// (`{"revoked":[…]}`): credits as `{creditedAt, productId, revocationReason, revokedAt,
    /// transactionId, user}`.
    static func credits(_ credits: [Credit], listedAs name: StaticString, user: String? = nil) -> Response {
        Response.json { json in
            json.beginObject()
            json.key(name)
            json.beginArray()
            for credit in credits {
                json.beginObject()
                json.member("creditedAt", milliseconds: credit.creditedAt)
                json.member("productId", credit.productId)
                json.member("revocationReason", credit.revocationReason)
                json.member("revokedAt", milliseconds: credit.revokedAt)
                json.member("transactionId", credit.transactionId)
                json.member("user", credit.user)
                json.endObject()
            }
            json.endArray()
            json.member("user", user)
            json.endObject()
        }
    }
}

extension LedgerResponse {
    /// `GET /v1/users/{user}/entitlements`: `{"at":T,"entitlements":[ENTRY…],"user":USER}`, each
    /// ENTRY the library's `SubscriptionState` JSON (every member, `null` when unknown).
    static func entitlements(_ entries: [SubscriptionState], user: String, at instant: Date) -> Response {
        Response.json { json in
            json.beginObject()
            json.member("at", milliseconds: instant)
            json.key("entitlements")
            json.beginArray()
            for entry in entries { entry.write(to: &json) }
            json.endArray()
            json.member("user", user)
            json.endObject()
        }
    }

    /// `GET /v1/notifications`: `{"notifications":[{notificationUUID, notificationType, subtype,
    /// signedDate, originalTransactionId, transactionId, deliveries, stale, firstReceivedAt,
    /// lastReceivedAt}…]}`, every member present (`null` when the notification has none).
    static func notifications(_ logged: [LoggedNotification]) -> Response {
        Response.json { json in
            json.beginObject()
            json.key("notifications")
            json.beginArray()
            for entry in logged {
                let notification = entry.notification
                json.beginObject()
                json.member("deliveries", Int64(entry.deliveries))
                json.member("firstReceivedAt", milliseconds: entry.firstReceivedAt)
                json.member("lastReceivedAt", milliseconds: entry.lastReceivedAt)
                json.member("notificationType", orNull: notification.notificationType)
                json.member("notificationUUID", notification.notificationUUID)
                json.member("originalTransactionId", orNull: notification.originalTransactionId)
                if let signed = notification.signedDate {
                    json.member("signedDate", milliseconds: signed)
                } else {
                    json.member("signedDate", orNull: nil)
                }
                json.key("stale")
                json.bool(entry.stale)
                json.member("subtype", orNull: notification.subtype)
                json.member("transactionId", orNull: notification.transactionId)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
    }

    /// `GET /v1/webhooks/failed`: `{"failed":[{"id","user","type","attempts","lastError","failedAt","body"}…]}`,
    /// `body` the event as posted (a JSON object).
    static func failedWebhooks(_ events: [WebhookEvent]) -> Response {
        Response.json { json in
            json.beginObject()
            json.key("failed")
            json.beginArray()
            for event in events {
                json.beginObject()
                json.member("attempts", Int64(event.attempts))
                json.key("body")
                // The ledger wrote it: JSON; anything else is shown as text rather than spliced in.
                if let body = try? StrictJSON.parse(event.body) { body.write(to: &json) } else { json.string(String(decoding: event.body, as: UTF8.self)) }
                json.member("failedAt", milliseconds: event.failedAt)
                json.member("id", event.id)
                json.member("lastError", event.lastError)
                json.member("type", event.type)
                json.member("user", event.user)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
    }

    /// `POST /v1/webhooks/{id}/retry`: `{"id":ID,"state":"pending"}`.
    static func webhookRetried(id: String) -> Response {
        Response.json { json in
            json.beginObject()
            json.member("id", id)
            json.member("state", "pending")
            json.endObject()
        }
    }

    /// `GET /v1/subscriptions/{originalTransactionId}`: one ENTRY and `"owner"` (a user or `null`).
    static func subscription(_ entry: SubscriptionState, owner: String?) -> Response {
        Response.json { json in
            json.beginObject()
            entry.writeMembers(to: &json)
            json.key("owner")
            if let owner { json.string(owner) } else { json.null() }
            json.endObject()
        }
    }
}

extension JSONWriter {
    fileprivate mutating func member(_ key: StaticString, orNull value: String?) {
        self.key(key)
        if let value { string(value) } else { null() }
    }

    fileprivate mutating func member(_ key: StaticString, ids: [String]) {
        self.key(key)
        beginArray()
        for id in ids { string(id) }
        endArray()
    }
}
