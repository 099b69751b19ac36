import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import ReceiptParser

/// A failure answered as JSON with a verifyReceipt status, never as an HTML error page.
struct ServerError: Error {
    let status: HTTPResponse.Status
    let receiptStatus: Int64
    let message: String

    /// No verification slot freed up within the time budget: 503 and 21005, try again.
    static func busy(_ gate: VerificationGate) -> ServerError {
        ServerError(status: .serviceUnavailable, receiptStatus: ReceiptService.busyStatus,
                    message: "the server is busy: no verification slot freed up within \(gate.timeout); try again")
    }
}
