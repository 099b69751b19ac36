import Hummingbird
import ReceiptParser

/// `POST /v1/receipts` answers: the typed model for a verified receipt; compact, keys sorted, as
/// `JSONEncoder.receiptModels()` writes the models. Refused receipts are ``Refusal``s.
enum TypedResponse {
    /// The answer for `outcome`; throws its ``Refusal`` when it is not accepted.
    static func response(for outcome: ReceiptService.Outcome) throws(Refusal) -> Response {
        guard case .accepted(let verified) = outcome else { throw outcome.refusal! }
        return Response.json(status: .ok) { json in
            json.beginObject()
            json.member("receipt", verified.receipt)
            json.member("verdict", Verdict.verified)
            json.member("verification", verified.verification)
            json.endObject()
        }
    }
}
