import Hummingbird
import ReceiptParser

/// `POST /v1/receipts` answers: the typed model for a verified receipt, a JSON error otherwise;
/// compact, keys sorted, as `JSONEncoder.receiptModels()` writes the models.
enum TypedResponse {
    static func response(for outcome: ReceiptService.Outcome) -> Response {
        switch outcome {
        case .accepted(let verified):
            return Response.json(status: .ok) { json in
                json.beginObject()
                json.member("receipt", verified.receipt)
                json.member("verdict", Verdict.verified)
                json.member("verification", verified.verification)
                json.endObject()
            }
        case .bundleNotAccepted, .otherEnvironment:
            let refusal = outcome.refusal!
            return failure(.unprocessableContent, verdict: .notAccepted, status: refusal.status.rawValue,
                           code: refusal.code, reason: refusal.reason)
        case .rejected(let error):
            return failure(httpStatus(for: error), verdict: Verdict(failure: error),
                           status: VerifyReceiptResponse.Status(error).rawValue, code: error.code.name, reason: error.reason)
        }
    }

    /// `{"error":{"code":…,"member":…,"reason":…},"status":…,"verdict":…}`; `member` (the JSON
    /// body's member at fault, StoreKit 2 data only) when known.
    static func failure(_ httpStatus: HTTPResponse.Status, verdict: Verdict, status: Int64, code: String, reason: String,
                        member: String? = nil) -> Response {
        Response.json(status: httpStatus) { json in
            json.beginObject()
            json.errorMember(code: code, member: member, reason: reason)
            json.member("status", status)
            json.member("verdict", verdict)
            json.endObject()
        }
    }

    /// 400 for a body that is not a request at all (malformed JSON, duplicate keys): the
    /// client's mistake, not a receipt's. 422 for every other receipt that cannot be used.
    static func httpStatus(for error: ReceiptError) -> HTTPResponse.Status {
        error.code == .invalidJSON || error.code == .duplicateKey ? .badRequest : .unprocessableContent
    }

    /// 503 with status 21005 when no verification slot freed up in time; `Retry-After: 1`.
    static func busy(_ gate: VerificationGate) -> Response {
        var response = failure(.serviceUnavailable, verdict: .unavailable, status: ReceiptService.busyStatus,
                               code: "busy", reason: ServerError.busy(gate).message)
        response.headers[.retryAfter] = "1"
        return response
    }
}
