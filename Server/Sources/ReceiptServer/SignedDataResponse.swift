import Hummingbird
import ReceiptParser

/// The answers of the StoreKit 2 routes, compact JSON with sorted keys as ``TypedResponse``'s;
/// refusals in its error shape, naming the member at fault.
enum SignedDataResponse {
    /// `POST /v2/notifications`: 200 with the notification's UUID, type and subtype only when it
    /// and every nested token verified and passed the checks; 400 otherwise, so that Apple sends
    /// it again (it retries anything but 2xx) rather than the server taking a forgery.
    static func notification(_ outcome: SignedDataOutcome) -> Response {
        guard let refusal = outcome.refusal else {
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
        return failure(.badRequest, refusal)
    }

    /// `POST /v1/transactions`: 200 with every token's inspection (its typed payload, chain and
    /// checks, as receipt-dump's JSON writes it) when all verified; 400 when the input cannot be
    /// read (receipt-dump's exit 2), 422 when it is readable but not verified or not accepted.
    static func transactions(_ outcome: SignedDataOutcome) -> Response {
        guard let refusal = outcome.refusal else {
            return Response.json(status: .ok) { json in
                json.beginObject()
                json.member("tokens", outcome.inspections)
                json.member("verdict", Verdict.verified)
                json.endObject()
            }
        }
        return failure(refusal.verdict == .unreadable ? .badRequest : .unprocessableContent, refusal)
    }

    /// The error shape of `/v1/receipts`, with verifyReceipt's status for the verdict: 21002
    /// unreadable, 21003 otherwise.
    private static func failure(_ httpStatus: HTTPResponse.Status, _ refusal: SignedDataOutcome.Refusal) -> Response {
        let status: VerifyReceiptResponse.Status = refusal.verdict == .unreadable ? .malformed : .notAuthenticated
        return TypedResponse.failure(httpStatus, verdict: refusal.verdict, status: status.rawValue, code: refusal.code,
                                     reason: refusal.reason, member: refusal.member)
    }
}
