import Foundation
import Hummingbird
import ReceiptParser

/// `POST /v1/receipts` answers: the typed model for a verified receipt, a JSON error otherwise.
enum TypedResponse {
    struct Verified: Encodable {
        let verdict = Verdict.verified
        let verification: VerificationReport
        let receipt: Receipt
    }

    struct Failure: Encodable {
        let verdict: Verdict
        let status: Int64
        let error: [String: String]
    }

    static func response(for outcome: ReceiptService.Outcome) throws -> Response {
        let encoder = JSONEncoder.receiptModels()
        let (status, data): (HTTPResponse.Status, Data)
        switch outcome {
        case .accepted(let verified):
            (status, data) = (.ok, try encoder.encode(Verified(verification: verified.verification, receipt: verified.receipt)))
        case .bundleNotAccepted, .otherEnvironment:
            let refusal = outcome.refusal!
            let failure = Failure(verdict: .notAccepted, status: refusal.status.rawValue,
                                  error: ["code": refusal.code, "reason": refusal.reason])
            (status, data) = (.unprocessableContent, try encoder.encode(failure))
        case .rejected(let error):
            let receiptStatus = VerifyReceiptResponse.Status(error)
            let failure = Failure(verdict: Verdict(failure: error),
                                  status: receiptStatus.rawValue, error: ["code": error.code.name, "reason": error.reason])
            (status, data) = (httpStatus(for: error), try encoder.encode(failure))
        }
        let text = JSONValue.escapingInvisibleCharacters(in: String(decoding: data, as: UTF8.self))
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// 400 for a body that is not a request at all (malformed JSON, duplicate keys): the
    /// client's mistake, not a receipt's. 422 for every other receipt that cannot be used.
    static func httpStatus(for error: ReceiptError) -> HTTPResponse.Status {
        error.code == .invalidJSON || error.code == .duplicateKey ? .badRequest : .unprocessableContent
    }

    /// 503 with status 21005 when no verification slot freed up in time; `Retry-After: 1`.
    static func busy(_ gate: VerificationGate) throws -> Response {
        let failure = Failure(verdict: .unavailable, status: ReceiptService.busyStatus,
                              error: ["code": "busy", "reason": ServerError.busy(gate).message])
        let data = try JSONEncoder.receiptModels().encode(failure)
        return Response(status: .serviceUnavailable,
                        headers: [.contentType: "application/json; charset=utf-8", .retryAfter: "1"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
