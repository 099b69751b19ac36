import Foundation
import Logging
import ReceiptParser

/// What the server does with a receipt, independent of HTTP: verify, apply the server's rules,
/// and shape the answer.
struct ReceiptService: Sendable {
    let configuration: ServerConfiguration

    /// A receipt's fate on this server.
    enum Outcome {
        /// Verified, and from an accepted app.
        case accepted(VerifiedReceipt)
        /// Genuine, but from an app this server does not serve.
        case bundleNotAccepted(VerifiedReceipt)
        /// Unreadable or not genuine.
        case rejected(ReceiptError)
    }

    func verify(_ input: [UInt8]) -> Outcome {
        do {
            let verified = try configuration.verifier.verifyAndDecode(input)
            if !configuration.accepts(bundleID: verified.receipt.bundleID) {
                return .bundleNotAccepted(verified)
            }
            return .accepted(verified)
        } catch {
            return .rejected(error)
        }
    }

    /// `POST /verifyReceipt`: Apple's request body in, Apple's response format out.
    func verifyReceipt(body: [UInt8], logger: Logger) -> JSONValue {
        guard let request = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let receiptData = request["receipt-data"] as? String
        else {
            logger.notice("receipt rejected", metadata: ["route": "verifyReceipt", "code": "badRequest",
                                                         "reason": "no receipt-data string in the body"])
            return Self.status(.malformed)
        }
        let outcome = verify(Array(receiptData.utf8))
        log(outcome, route: "verifyReceipt", logger: logger)
        switch outcome {
        case .rejected(let error):
            return VerifyReceiptResponse.make(for: .failure(error))
        case .bundleNotAccepted:
            return Self.status(.notAuthenticated)
        case .accepted(var verified):
            if (request["exclude-old-transactions"] as? Bool) == true {
                var receipt = verified.receipt
                receipt.inAppPurchases = Self.excludingOldTransactions(receipt)
                verified = VerifiedReceipt(receipt: receipt, verification: verified.verification)
            }
            return VerifyReceiptResponse.make(for: .success(verified), expecting: configuration.expectedEnvironment)
        }
    }

    static func status(_ status: VerifyReceiptResponse.Status) -> JSONValue {
        .object([("status", .number(status.rawValue))])
    }

    /// Keeps only the latest period of each auto-renewable subscription, as Apple's
    /// `exclude-old-transactions` does; other purchases stay.
    static func excludingOldTransactions(_ receipt: Receipt) -> [InAppPurchase] {
        let latest = receipt.latestTransactions()
        return receipt.inAppPurchases.filter { purchase in
            guard purchase.expiresDate != nil, let original = purchase.originalTransactionID ?? purchase.transactionID else {
                return true
            }
            let latestID = latest[ExactIdentifier(original)]?.transactionID
            return latestID.map(ExactIdentifier.init) == purchase.transactionID.map(ExactIdentifier.init)
        }
    }

    func log(_ outcome: Outcome, route: String, logger: Logger) {
        switch outcome {
        case .accepted(let verified):
            logger.info("receipt verified", metadata: [
                "route": .string(route), "bundle_id": .string(verified.receipt.bundleID ?? "-"),
                "environment": .string(verified.receipt.environment.rawValue),
                "in_app": .stringConvertible(verified.receipt.inAppPurchases.count),
            ])
        case .bundleNotAccepted(let verified):
            logger.notice("receipt rejected", metadata: [
                "route": .string(route), "code": "bundleNotAccepted",
                "bundle_id": .string(verified.receipt.bundleID ?? "-"),
            ])
        case .rejected(let error):
            logger.notice("receipt rejected", metadata: [
                "route": .string(route), "code": .string(error.code.name), "reason": .string(error.reason),
            ])
        }
    }
}
