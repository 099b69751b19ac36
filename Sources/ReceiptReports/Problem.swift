import ReceiptParser

/// A failure as receipt-dump reports it: a stable code and a reason.
public struct Problem: Error, Sendable {
    /// A ReceiptError code, or one of receipt-dump's own (`unreadableFile`).
    public let code: String
    /// For people; may quote input, so shown through DisplayText.
    public let reason: String

    /// A failure with this code and reason.
    public init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    package init(_ error: ReceiptError) {
        self.init(code: error.code.name, reason: error.reason)
    }
}
