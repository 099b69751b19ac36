import ReceiptParser

/// What the server makes of StoreKit 2 signed data (a bare token or a JSON body): every token's
/// inspection, and the first reason, in the body's order, to refuse the whole input. An input is
/// accepted only when every signed member verified, passed the expectations (an app and the
/// environment this server serves) and agrees with the other members: the library's rules, so
/// receipt-dump judges the same body the same way.
struct SignedDataOutcome: Sendable {
    let inspections: [SignedDataInspection]
    /// Why the input is refused (``Refusal/signedData(member:verdict:code:reason:)``): the member
    /// at fault (nil for a bare token or the body itself), the verdict, a ``ReceiptError/Code``
    /// name and a reason for people; nil when it is accepted.
    private(set) var refusal: Refusal?

    init(_ inspections: [SignedDataInspection]) {
        self.inspections = inspections
        refusal = Self.firstRefusal(in: inspections)
    }

    /// An input refused before any token was read.
    init(refusal: Refusal) {
        inspections = []
        self.refusal = refusal
    }

    var verdict: Verdict { refusal?.verdict ?? .verified }

    /// A route's own rule over the inspections, applied after the tokens' rules: an input
    /// refused already keeps its first reason.
    mutating func refuse(_ rule: ([SignedDataInspection]) -> Refusal?) {
        if refusal == nil { refusal = rule(inspections) }
    }

    /// The body's notification, as its payload says (verified, or claimed when refused).
    var notification: ServerNotification? {
        inspections.lazy.compactMap { inspection -> ServerNotification? in
            guard case .notification(let notification)? = inspection.decoded else { return nil }
            return notification
        }.first
    }

    /// The transaction the body's notification holds (`data.signedTransactionInfo`), as decoded.
    var notificationTransaction: SignedTransaction? {
        notificationTokens.compactMap { inspection -> SignedTransaction? in
            guard case .transaction(let transaction)? = inspection.decoded else { return nil }
            return transaction
        }.first
    }

    /// The renewal info the body's notification holds (`data.signedRenewalInfo`), as decoded.
    var notificationRenewalInfo: SignedRenewalInfo? {
        notificationTokens.compactMap { inspection -> SignedRenewalInfo? in
            guard case .renewalInfo(let renewalInfo)? = inspection.decoded else { return nil }
            return renewalInfo
        }.first
    }

    /// The tokens nested in the body's notification.
    private var notificationTokens: some Sequence<SignedDataInspection> {
        inspections.lazy.filter { if case .notification? = $0.decoded { true } else { false } }.flatMap(\.nested)
    }

    /// The first token, in the body's order, that failed: reading, trust, kind, nested tokens,
    /// the expectations, or the agreement of one body's tokens (the library's `BodyAgreement`).
    private static func firstRefusal(in inspections: [SignedDataInspection]) -> Refusal? {
        inspections.lazy.compactMap { inspection in
            inspection.failure.map {
                Refusal.signedData(member: inspection.member, verdict: inspection.verdict, code: $0.code.name, reason: $0.reason)
            }
        }.first
    }
}
