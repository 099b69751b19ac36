#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A signed payload read as its kind: what a verified token says, typed.
public enum SignedPayload: Sendable, Hashable {
    /// A transaction.
    case transaction(SignedTransaction)
    /// A subscription's renewal info.
    case renewalInfo(SignedRenewalInfo)
    /// An app transaction.
    case appTransaction(SignedAppTransaction)
    /// An App Store Server Notification V2.
    case notification(ServerNotification)

    /// Reads `payload` as `kind` (``SignedDataKind/detect(payload:)`` or the kind expected).
    ///
    /// Throws ``ReceiptError/Code/wrongValueType`` when a documented field has another JSON
    /// type than Apple documents: the payload cannot be read as its kind.
    public init(kind: SignedDataKind, payload: StrictJSON.Value) throws(ReceiptError) {
        switch kind {
        case .transaction: self = .transaction(try SignedTransaction(payload: payload))
        case .renewalInfo: self = .renewalInfo(try SignedRenewalInfo(payload: payload))
        case .appTransaction: self = .appTransaction(try SignedAppTransaction(payload: payload))
        case .notification: self = .notification(try ServerNotification(payload: payload))
        }
    }

    /// The kind of payload.
    public var kind: SignedDataKind {
        switch self {
        case .transaction: .transaction
        case .renewalInfo: .renewalInfo
        case .appTransaction: .appTransaction
        case .notification: .notification
        }
    }

    /// When the data was signed (an app transaction: its receipt's creation).
    public var signedDate: Date? {
        switch self {
        case .transaction(let value): value.signedDate
        case .renewalInfo(let value): value.signedDate
        case .appTransaction(let value): value.signedDate
        case .notification(let value): value.signedDate
        }
    }

    /// The environment it says (`Sandbox`, `Production`, ...; an app transaction's `receiptType`).
    public var environment: String? {
        switch self {
        case .transaction(let value): value.environment
        case .renewalInfo(let value): value.environment
        case .appTransaction(let value): value.environment
        case .notification(let value): value.environment
        }
    }

    /// The bundle id it says; renewal info has none.
    public var bundleId: String? {
        switch self {
        case .transaction(let value): value.bundleId
        case .renewalInfo: nil
        case .appTransaction(let value): value.bundleId
        case .notification(let value): value.bundleId
        }
    }

    /// The App Apple ID it says; transactions and renewal info have none.
    public var appAppleId: Int64? {
        switch self {
        case .transaction, .renewalInfo: nil
        case .appTransaction(let value): value.appAppleId
        case .notification(let value): value.appAppleId
        }
    }
}

extension SignedPayload: JSONWritable {
    /// The model's own JSON.
    public func write(to json: inout JSONWriter) {
        switch self {
        case .transaction(let value): value.write(to: &json)
        case .renewalInfo(let value): value.write(to: &json)
        case .appTransaction(let value): value.write(to: &json)
        case .notification(let value): value.write(to: &json)
        }
    }
}
