#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

/// The --format verifyreceipt output: Apple's response format.
package enum VerifyReceiptReport {
    package static func render(_ result: DumpResult, expecting environment: Environment?) -> JSONValue {
        if let verified = result.verifiedReceipt, result.readError == nil {
            return VerifyReceiptResponse.make(for: .success(verified), expecting: environment)
        }
        let status: VerifyReceiptResponse.Status = result.readError == nil ? .notAuthenticated : .malformed
        return .object([("status", .number(status.rawValue))])
    }
}
