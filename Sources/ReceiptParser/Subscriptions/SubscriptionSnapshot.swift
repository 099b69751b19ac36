#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A signed word on a subscription that a store keeps and versions: a transaction (by its
/// `transactionId`) or renewal info (by its `originalTransactionId`).
///
/// ``snapshotBytes`` is what a store keeps: ``JSONWritable/write(to:)``'s JSON, every member
/// Apple signed included. Two snapshots are ordered by ``signedDate``, then by those bytes, so a
/// database comparing the stored bytes (`BLOB`, `BYTEA`) keeps the same one as
/// ``SubscriptionSnapshots`` whatever order they arrive in.
public protocol SubscriptionSnapshot: JSONWritable, Sendable {
    /// When the App Store signed it; nil counts as the earliest instant.
    var signedDate: Date? { get }

    /// Reads a snapshot back from its ``snapshotBytes``.
    ///
    /// Throws ``ReceiptError/Code/invalidJSON`` or ``ReceiptError/Code/wrongValueType`` when the
    /// bytes are not such JSON: a store's data changed under it.
    init(snapshotBytes: [UInt8]) throws(ReceiptError)
}

extension SubscriptionSnapshot {
    /// The bytes to keep: the JSON ``JSONWritable/write(to:)`` writes.
    public var snapshotBytes: [UInt8] {
        var json = JSONWriter()
        write(to: &json)
        return json.finish()
    }

    /// Whether this snapshot replaces `held`: signed later or, at the same instant, larger bytes
    /// (a total order, so every arrival order keeps the same snapshot).
    public func supersedes(_ held: Self) -> Bool {
        let (new, old) = (signedDate ?? .distantPast, held.signedDate ?? .distantPast)
        if new != old { return new > old }
        return held.snapshotBytes.lexicographicallyPrecedes(snapshotBytes)
    }
}

extension SignedTransaction: SubscriptionSnapshot {
    public init(snapshotBytes: [UInt8]) throws(ReceiptError) {
        self = try .read(written: StrictJSON.parse(snapshotBytes))
    }
}

extension SignedRenewalInfo: SubscriptionSnapshot {
    public init(snapshotBytes: [UInt8]) throws(ReceiptError) {
        self = try .read(written: StrictJSON.parse(snapshotBytes))
    }
}

extension SignedTransaction {
    /// The original transaction id its subscription (or non-consumable) is known by: its own id
    /// when it names no original.
    public var subscriptionKey: String? { originalTransactionId ?? transactionId }
}
