import Hummingbird
import ReceiptLedger

/// A ledger request refused before or by the ledger, answered as
/// `{"error":{"code":…,"member":…,"reason":…}}`.
struct LedgerRequestError: Error {
    let status: HTTPResponse.Status
    let code: String
    let member: String?
    let reason: String

    /// 400: the request itself is wrong (a member missing, unknown or of the wrong type).
    static func invalid(member: String?, _ reason: String) -> LedgerRequestError {
        LedgerRequestError(status: .badRequest, code: "invalidRequest", member: member, reason: reason)
    }

    /// The ledger's refusal: 422 for a transaction the input does not hold, 409 for a transaction
    /// or binding that belongs to someone else or a transaction revoked before it was credited, 503
    /// when the database failed (try again: a credit it may have written is answered
    /// `alreadyCredited`). The database's own message goes to the log, not to the client.
    init(_ error: LedgerError) {
        switch error {
        case .transactionNotInInput:
            self.init(status: .unprocessableContent, code: "transactionNotInInput", member: "transactionId", reason: error.description)
        case .creditedToAnotherUser:
            self.init(status: .conflict, code: "creditedToAnotherUser", member: "transactionId", reason: error.description)
        case .transactionRevoked:
            self.init(status: .conflict, code: "transactionRevoked", member: "transactionId", reason: error.description)
        case .appAccountTokenMismatch:
            self.init(status: .conflict, code: "appAccountTokenMismatch", member: nil, reason: error.description)
        case .bindingConflict:
            self.init(status: .conflict, code: "bindingConflict", member: "appAccountToken", reason: error.description)
        case .storageUnavailable:
            self.init(status: .serviceUnavailable, code: "storageUnavailable", member: nil,
                      reason: "the ledger's database is unavailable; try again (a retry is safe: nothing is credited twice)")
        }
    }

    init(status: HTTPResponse.Status, code: String, member: String?, reason: String) {
        self.status = status
        self.code = code
        self.member = member
        self.reason = reason
    }

    var response: Response {
        var response = Response.json(status: status) { json in
            json.beginObject()
            json.errorMember(code: code, member: member, reason: reason)
            json.endObject()
        }
        if status == .serviceUnavailable { response.headers[.retryAfter] = "1" }
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        return response
    }
}
