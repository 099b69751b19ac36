#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The latest signed word on each transaction and each subscription's renewal info, however late,
/// repeated or out of order they arrived: a snapshot replaces the one held only when it was signed
/// later. A revocation is part of its transaction's snapshot, so a refund reversed later stays
/// reversed whichever of the two arrives last.
///
/// Snapshots signed at the same instant are ordered by their ``SubscriptionSnapshot/snapshotBytes``,
/// so the same set of inputs gives the same snapshots in every order.
public struct SubscriptionSnapshots: Sendable {
    /// Transactions by `transactionId`.
    public private(set) var transactions: [String: SignedTransaction] = [:]
    /// Renewal info by `originalTransactionId`.
    public private(set) var renewalInfos: [String: SignedRenewalInfo] = [:]

    public init() {}

    /// Keeps `transaction` unless one with its id signed later (or the same, at the same
    /// instant) is held; false when it changed nothing, or has no id.
    @discardableResult
    public mutating func record(_ transaction: SignedTransaction) -> Bool {
        Self.keep(transaction, as: transaction.transactionId, in: &transactions)
    }

    /// Keeps `renewalInfo` unless one for its original transaction signed later (or the same, at
    /// the same instant) is held; false when it changed nothing, or names no original transaction.
    @discardableResult
    public mutating func record(_ renewalInfo: SignedRenewalInfo) -> Bool {
        Self.keep(renewalInfo, as: renewalInfo.originalTransactionId, in: &renewalInfos)
    }

    /// Records the transactions and renewal info of a token that verified and was accepted, and
    /// of its nested tokens (a notification's, verified with it); nothing of data that was not.
    public mutating func record(_ inspection: SignedDataInspection) {
        guard inspection.verdict == .verified else { return }
        switch inspection.decoded {
        case .transaction(let transaction)?: record(transaction)
        case .renewalInfo(let renewalInfo)?: record(renewalInfo)
        default: break
        }
        for nested in inspection.nested { record(nested) }
    }

    /// Puts `snapshot` under `id` unless the one there is newer or the same.
    private static func keep<Model: SubscriptionSnapshot>(_ snapshot: Model, as id: String?,
                                                          in held: inout [String: Model]) -> Bool {
        guard let id else { return false }
        if let current = held[id], !snapshot.supersedes(current) { return false }
        held[id] = snapshot
        return true
    }

    /// Every subscription and non-consumable held, at `instant`, sorted by product id then
    /// original transaction id.
    public func subscriptions(at instant: Date) -> [SubscriptionState] {
        var byOriginal: [String: [SignedTransaction]] = [:]
        for transaction in transactions.values {
            byOriginal[transaction.subscriptionKey ?? "", default: []].append(transaction)
        }
        return byOriginal.compactMap { original, transactions in
            SubscriptionRules.state(originalTransactionId: original, transactions: transactions,
                                    renewalInfo: renewalInfos[original], at: instant)
        }.sorted { ($0.productId ?? "", $0.originalTransactionId) < ($1.productId ?? "", $1.originalTransactionId) }
    }
}
