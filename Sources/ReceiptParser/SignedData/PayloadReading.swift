#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One token's payload read as its kind, once: the signed date certificates are judged at, the
/// identity the expectations compare and the model the caller gets all come from this one read.
struct PayloadReading {
    let kind: SignedDataKind?
    let value: StrictJSON.Value
    /// The read, once made.
    private(set) var result: Result<SignedPayload, ReceiptError>?

    init(kind: SignedDataKind?, value: StrictJSON.Value) {
        self.kind = kind
        self.value = value
    }

    /// The payload as its kind; a documented field of another JSON type fails it
    /// (``ReceiptError/Code/wrongValueType``).
    mutating func read() -> Result<SignedPayload, ReceiptError> {
        if let result { return result }
        let read: Result<SignedPayload, ReceiptError>
        if let kind {
            do {
                read = .success(try SignedPayload(kind: kind, payload: value))
            } catch {
                read = .failure(error)
            }
        } else {
            read = .failure(Self.noKind)
        }
        result = read
        return read
    }

    /// The instant the data claims, asked once its signature holds: `signedDate`, or an app
    /// transaction's `receiptCreationDate`, in milliseconds since 1970 (a fraction of a
    /// millisecond is accepted; Xcode writes one).
    mutating func signedDate() throws(ReceiptError) -> Date {
        guard let kind else { throw Self.noKind }
        switch read() {
        case .failure(let error):
            throw error
        case .success(let payload):
            guard let date = payload.signedDate else {
                throw ReceiptError(.missingSignedDate, "the payload has no \(kind.dateField) and no validation time was given")
            }
            return date
        }
    }

    static let noKind = ReceiptError(.wrongKind, "the payload is of no known kind (no transactionId, notificationType, receiptType or renewal member)")
}
