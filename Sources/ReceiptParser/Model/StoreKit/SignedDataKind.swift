/// The kinds of data Apple signs as StoreKit 2 JWS. They share one signer, so a token's kind is
/// told by its payload, and a token of one kind is refused where another is expected.
public enum SignedDataKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A transaction (`signedTransactionInfo`, `Transaction.jwsRepresentation`).
    case transaction
    /// A subscription's renewal info (`signedRenewalInfo`).
    case renewalInfo
    /// An app transaction (`AppTransaction`, `signedAppTransactionInfo`).
    case appTransaction
    /// An App Store Server Notification V2 (`signedPayload`).
    case notification

    /// The kind a payload's member names say, or nil when they say none.
    public static func detect(payload: StrictJSON.Value) -> SignedDataKind? {
        guard case .object(let members) = payload else { return nil }
        func has(_ names: String...) -> Bool {
            members.contains { member in names.contains { StrictJSON.sameBytes(member.key, $0) } }
        }
        if has("notificationType") { return .notification }
        if has("receiptType", "receiptCreationDate", "originalApplicationVersion", "applicationVersion") { return .appTransaction }
        if has("transactionId") { return .transaction }
        if has("autoRenewStatus", "autoRenewProductId", "renewalDate", "expirationIntent", "priceIncreaseStatus",
               "isInBillingRetryPeriod", "gracePeriodExpiresDate", "recentSubscriptionStartDate", "renewalPrice",
               "eligibleWinBackOfferIds") {
            return .renewalInfo
        }
        return nil
    }

    /// The payload member holding the instant to judge certificates at: an app transaction has
    /// no `signedDate`, and is judged at its receipt's creation.
    var dateField: String { self == .appTransaction ? "receiptCreationDate" : "signedDate" }

    /// For reasons: "a transaction".
    var phrase: String {
        switch self {
        case .transaction: "a transaction"
        case .renewalInfo: "renewal info"
        case .appTransaction: "an app transaction"
        case .notification: "a notification"
        }
    }
}
