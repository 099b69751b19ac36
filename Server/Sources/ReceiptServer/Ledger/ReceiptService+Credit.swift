import Hummingbird
import Logging
import ReceiptLedger
import ReceiptParser

// A credit's input is verified by the very code of /verifyReceipt (receipts) and /v1/transactions
// (StoreKit 2 transactions): same trust, bundle ids, environment and App Apple ID.

extension ReceiptService {
    static let creditsRoute = "v1/credits"

    /// What verification made of a credit's input.
    enum CreditVerification: Sendable {
        case receipt(Outcome)
        case signedTransaction(SignedDataOutcome)

        /// The input's transactions as the ledger records them; nil when the input was refused.
        var transactions: [LedgerTransaction]? {
            switch self {
            case .receipt(.accepted(let verified)):
                return LedgerTransaction.transactions(of: verified.receipt)
            case .signedTransaction(let outcome) where outcome.refusal == nil:
                return outcome.inspections.compactMap { inspection in
                    guard case .transaction(let transaction)? = inspection.decoded else { return nil }
                    return LedgerTransaction(signedTransaction: transaction)
                }
            case .receipt, .signedTransaction:
                return nil
            }
        }

        /// Why /v1/receipts or /v1/transactions would refuse the input; nil when it is accepted.
        var refusal: Refusal? {
            switch self {
            case .receipt(let outcome): outcome.refusal
            case .signedTransaction(let outcome): outcome.refusal
            }
        }
    }

    /// Verifies a credit's input (run it under the verification gate) and logs the outcome.
    func verifyCredit(_ request: CreditRequest, logger: Logger) -> CreditVerification {
        switch request.input {
        case .receipt(let base64):
            let outcome = verify(Array(base64.utf8))
            log(outcome, route: Self.creditsRoute, logger: logger)
            return .receipt(outcome)
        case .signedTransaction(let token):
            var outcome = verifyTransactions(body: Array(token.utf8))
            // A JSON body inside the string would be several tokens, not the one transaction named.
            outcome.refuse { inspections in
                inspections.count == 1 && inspections[0].member == nil ? nil
                    : .signedData(member: "signedTransaction", verdict: .unreadable, code: ReceiptError.Code.wrongKind.name,
                            reason: "signedTransaction is one transaction token (JWS), not a JSON body")
            }
            log(outcome, route: Self.creditsRoute, logger: logger)
            return .signedTransaction(outcome)
        }
    }
}
