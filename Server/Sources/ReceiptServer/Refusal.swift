import Hummingbird
import HummingbirdCore
import NIOCore
import ReceiptLedger
import ReceiptParser

/// Every request the server refuses, on every route, answered in one JSON shape:
///
/// ```
/// {"error":{"code":CODE,"member":MEMBER,"reason":REASON},"status":RECEIPT_STATUS,"verdict":VERDICT}
/// ```
///
/// `code` is a ``ReceiptError/Code`` name or one of the server's own (`invalidRequest`, `busy`,
/// `bodyTooLarge`, `notFound`, the ledger's); `reason` is for people, with every value taken
/// from the request escaped as display text; `member` names the request's member at fault when
/// one is; `status` (verifyReceipt's status) and `verdict` are there when a verification is
/// refused. `/verifyReceipt`'s own answers (`{"status":21002}` and the like) are Apple's format,
/// not refusals; only what happens before a verification there (a body too large, no slot in
/// time) is answered in this shape, `status` included so that verifyReceipt clients read it.
struct Refusal: HTTPResponseError, Sendable, Hashable {
    /// The HTTP status.
    let status: HTTPResponse.Status
    let code: String
    let reason: String
    /// The request's member (or query parameter) at fault, when one is.
    let member: String?
    /// verifyReceipt's status, when a verification is refused.
    let receiptStatus: Int64?
    /// The verdict on the input, when a verification is refused.
    let verdict: Verdict?

    init(_ status: HTTPResponse.Status, code: String, reason: String, member: String? = nil,
         receiptStatus: Int64? = nil, verdict: Verdict? = nil) {
        self.status = status
        self.code = code
        self.reason = reason
        self.member = member
        self.receiptStatus = receiptStatus
        self.verdict = verdict
    }

    /// The same refusal answered with another HTTP status (the notifications route answers
    /// every refusal 400, so that Apple sends the notification again).
    func answered(_ status: HTTPResponse.Status) -> Refusal {
        Refusal(status, code: code, reason: reason, member: member, receiptStatus: receiptStatus, verdict: verdict)
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        response
    }

    /// The refusal as an HTTP response: its JSON, `Retry-After: 1` on 503 (try again), and
    /// `WWW-Authenticate: Bearer` on 401.
    var response: Response {
        var response = Response.json(status: status) { json in
            json.beginObject()
            json.key("error")
            json.beginObject()
            json.member("code", code)
            json.member("member", member)
            json.member("reason", reason)
            json.endObject()
            if let receiptStatus { json.member("status", receiptStatus) }
            if let verdict { json.member("verdict", verdict) }
            json.endObject()
        }
        if status == .serviceUnavailable { response.headers[.retryAfter] = "1" }
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        return response
    }
}

// MARK: - Requests

extension Refusal {
    /// 400: the request itself is wrong (a member missing, unknown or of the wrong type).
    static func invalid(member: String?, _ reason: String) -> Refusal {
        Refusal(.badRequest, code: "invalidRequest", reason: reason, member: member)
    }

    /// 413: the body is larger than the server reads; refused before it is read whole.
    static func bodyTooLarge(limit: Int) -> Refusal {
        Refusal(.contentTooLarge, code: "bodyTooLarge", reason: "request body larger than \(limit) bytes",
                receiptStatus: VerifyReceiptResponse.Status.malformed.rawValue, verdict: .unreadable)
    }

    /// 503 with status 21005 when no verification slot freed up in time; try again.
    static func busy(_ gate: VerificationGate) -> Refusal {
        Refusal(.serviceUnavailable, code: "busy",
                reason: "the server is busy: no verification slot freed up within \(gate.timeout); try again",
                receiptStatus: ReceiptService.busyStatus, verdict: .unavailable)
    }

    /// 401 on the ledger routes without the ledger token.
    static let unauthorized = Refusal(.unauthorized, code: "unauthorized",
                                      reason: "the ledger routes require Authorization: Bearer and the ledger token")

    /// The framework's own refusals (no such route, a method the route does not take), and
    /// anything unexpected as 500 without its description, which could carry request values.
    init(_ error: any Error) {
        switch error {
        case let refusal as Refusal:
            self = refusal
        case let error as LedgerError:
            self.init(error)
        case let failure as Reconciler.Failure:
            self = failure.refusal
        case let error as HTTPError where error.status == .notFound:
            self.init(.notFound, code: "notFound", reason: "no such route")
        case let error as HTTPError where error.status == .methodNotAllowed:
            self.init(.methodNotAllowed, code: "methodNotAllowed", reason: "the route does not take this method")
        case let error as HTTPError where error.status == .contentTooLarge:
            self.init(.contentTooLarge, code: "bodyTooLarge", reason: "request body too large")
        case let error as any HTTPResponseError where (400..<500).contains(error.status.code):
            self.init(error.status, code: "invalidRequest", reason: error.status.reasonPhrase)
        default:
            self.init(.internalServerError, code: "internalError", reason: "internal error")
        }
    }
}

// MARK: - Verifications

extension Refusal {
    /// A StoreKit 2 input refused: 400 when it cannot be read (receipt-dump's exit 2), 422 when
    /// it is readable but not verified or not accepted; verifyReceipt's 21002 for unreadable
    /// input, 21003 otherwise.
    static func signedData(member: String?, verdict: Verdict, code: String, reason: String) -> Refusal {
        let unreadable = verdict == .unreadable
        return Refusal(unreadable ? .badRequest : .unprocessableContent, code: code, reason: reason, member: member,
                       receiptStatus: (unreadable ? VerifyReceiptResponse.Status.malformed : .notAuthenticated).rawValue,
                       verdict: verdict)
    }

    /// A receipt that cannot be used: 400 for a body that is not a request at all (malformed
    /// JSON, duplicate keys), the client's mistake rather than a receipt's; 422 otherwise.
    init(_ error: ReceiptError) {
        let status: HTTPResponse.Status = error.code == .invalidJSON || error.code == .duplicateKey ? .badRequest : .unprocessableContent
        self.init(status, code: error.code.name, reason: error.reason,
                  receiptStatus: VerifyReceiptResponse.Status(error).rawValue, verdict: Verdict(failure: error))
    }
}

// MARK: - The ledger

extension Refusal {
    /// The ledger's refusal: 422 for a transaction the input does not hold or text the ledger
    /// cannot store, 409 for a transaction or binding that belongs to someone else or a transaction
    /// revoked before it was credited, 503 when the database failed (try again: a credit it may
    /// have written is answered `alreadyCredited`). The database's own message goes to the log, not
    /// to the client.
    init(_ error: LedgerError) {
        switch error {
        case .transactionNotInInput:
            self.init(.unprocessableContent, code: "transactionNotInInput", reason: error.description, member: "transactionId")
        case .creditedToAnotherUser:
            self.init(.conflict, code: "creditedToAnotherUser", reason: error.description, member: "transactionId")
        case .transactionRevoked:
            self.init(.conflict, code: "transactionRevoked", reason: error.description, member: "transactionId")
        case .appAccountTokenMismatch:
            self.init(.conflict, code: "appAccountTokenMismatch", reason: error.description)
        case .bindingConflict:
            self.init(.conflict, code: "bindingConflict", reason: error.description, member: "appAccountToken")
        case .unstorableText:
            self.init(.unprocessableContent, code: "unstorableText", reason: error.description)
        case .storageUnavailable:
            self = .storageUnavailable
        }
    }

    /// 503: the ledger's database cannot be used now.
    static let storageUnavailable = Refusal(.serviceUnavailable, code: "storageUnavailable",
                                            reason: "the ledger's database is unavailable; try again (a retry is safe: nothing is credited twice)")
}
