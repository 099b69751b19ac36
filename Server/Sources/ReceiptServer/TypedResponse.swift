import Foundation
import Hummingbird
import ReceiptParser

/// `POST /v1/receipts` answers: the typed model for a verified receipt, a JSON error otherwise.
enum TypedResponse {
    struct Verified: Encodable {
        let verdict = "verified"
        let verification: VerificationReport
        let receipt: Receipt
    }

    struct Failure: Encodable {
        let verdict: String
        let status: Int64
        let error: [String: String]
    }

    static func response(for outcome: ReceiptService.Outcome) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        let (status, data): (HTTPResponse.Status, Data)
        switch outcome {
        case .accepted(let verified):
            (status, data) = (.ok, try encoder.encode(Verified(verification: verified.verification, receipt: verified.receipt)))
        case .bundleNotAccepted(let verified):
            let failure = Failure(verdict: "not accepted", status: VerifyReceiptResponse.Status.notAuthenticated.rawValue,
                                  error: ["code": "bundleNotAccepted",
                                          "reason": "bundle identifier \(verified.receipt.bundleID ?? "none") is not accepted by this server"])
            (status, data) = (.unprocessableContent, try encoder.encode(failure))
        case .rejected(let error):
            let receiptStatus = VerifyReceiptResponse.Status(error)
            let failure = Failure(verdict: receiptStatus == .malformed ? "unreadable" : "not verified",
                                  status: receiptStatus.rawValue, error: ["code": error.code.name, "reason": error.reason])
            (status, data) = (.unprocessableContent, try encoder.encode(failure))
        }
        let text = JSONValue.escapingInvisibleCharacters(in: String(decoding: data, as: UTF8.self))
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
