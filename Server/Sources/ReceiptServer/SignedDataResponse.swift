import Hummingbird
import ReceiptParser

/// The answers of the StoreKit 2 routes, compact JSON with sorted keys as ``TypedResponse``'s;
/// refused inputs are ``Refusal``s naming the member at fault.
enum SignedDataResponse {
    /// `POST /v2/notifications`: 200 with the notification's UUID, type and subtype only when it
    /// and every nested token verified and passed the checks; 400 otherwise, so that Apple sends
    /// it again (it retries anything but 2xx) rather than the server taking a forgery.
    static func notification(_ outcome: SignedDataOutcome) throws(Refusal) -> Response {
        if let refusal = outcome.refusal { throw refusal.answered(.badRequest) }
        let notification = outcome.notification
        return Response.json(status: .ok) { json in
            json.beginObject()
            json.member("notificationType", notification?.notificationType?.rawValue)
            json.member("notificationUUID", notification?.notificationUUID)
            json.member("subtype", notification?.subtype?.rawValue)
            json.member("verdict", Verdict.verified)
            json.endObject()
        }
    }

    /// `POST /v1/transactions`: 200 with every token's inspection (its typed payload, chain and
    /// checks, as receipt-dump's JSON writes it) when all verified; refused otherwise (400 when
    /// the input cannot be read, receipt-dump's exit 2; 422 when it is readable but not verified
    /// or not accepted).
    static func transactions(_ outcome: SignedDataOutcome) throws(Refusal) -> Response {
        if let refusal = outcome.refusal { throw refusal }
        return Response.json(status: .ok) { json in
            json.beginObject()
            json.member("tokens", outcome.inspections)
            json.member("verdict", Verdict.verified)
            json.endObject()
        }
    }
}
