import ReceiptParser

/// What the server makes of StoreKit 2 signed data (a bare token or a JSON body): every token's
/// inspection, and the first reason, in the body's order, to refuse the whole input. An input is
/// accepted only when every signed member verified, passed the expectations, is of an app this
/// server serves, and agrees with the other members.
struct SignedDataOutcome: Sendable {
    let inspections: [SignedDataInspection]
    /// Why the input is refused (``Refusal/signedData(member:verdict:code:reason:)``): the member
    /// at fault (nil for a bare token or the body itself), the verdict, a ``ReceiptError/Code``
    /// name and a reason for people; nil when it is accepted.
    private(set) var refusal: Refusal?

    init(_ inspections: [SignedDataInspection], configuration: ServerConfiguration) {
        self.inspections = inspections
        refusal = Self.firstRefusal(in: inspections, configuration: configuration) ?? Self.disagreement(in: inspections)
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
        let nested = inspections.lazy.filter { if case .notification? = $0.decoded { true } else { false } }.flatMap(\.nested)
        return nested.lazy.compactMap { inspection -> SignedTransaction? in
            guard case .transaction(let transaction)? = inspection.decoded else { return nil }
            return transaction
        }.first
    }

    /// The first token that failed (reading, trust, kind, nested tokens, the expectations) or
    /// names an app this server does not serve. With one accepted bundle id the library's check
    /// has refused it already, with the same code; with several, this is where it happens.
    private static func firstRefusal(in inspections: [SignedDataInspection], configuration: ServerConfiguration) -> Refusal? {
        for inspection in inspections {
            if let failure = inspection.failure {
                return Refusal.signedData(member: inspection.member, verdict: inspection.verdict, code: failure.code.name, reason: failure.reason)
            }
            guard let payload = inspection.decoded, payload.kind != .renewalInfo,
                  !configuration.accepts(bundleID: payload.bundleId) else { continue }
            let accepted = configuration.acceptedBundleIDs.sorted().map(\.text).joined(separator: ", ")
            return Refusal.signedData(member: inspection.member, verdict: .notAccepted, code: ReceiptError.Code.appIdentityMismatch.name,
                           reason: "bundle-id: expected one of \(accepted), the data has \(quoted(payload.bundleId))")
        }
        return nil
    }

    /// Where the members of one body disagree: a body speaks for one app in one environment, as
    /// a notification's nested tokens must agree with it, and a renewal info (which names no
    /// app) belongs to a transaction beside it, by `originalTransactionId`.
    private static func disagreement(in inspections: [SignedDataInspection]) -> Refusal? {
        let payloads = inspections.compactMap { inspection in inspection.decoded.map { (inspection.member, $0) } }
        if let refusal = firstDisagreement(payloads, on: "environment", code: .environmentMismatch, \.environment)
            ?? firstDisagreement(payloads, on: "bundle id", code: .appIdentityMismatch, \.bundleId) {
            return refusal
        }
        let transactions = payloads.compactMap { _, payload -> SignedTransaction? in
            guard case .transaction(let transaction) = payload else { return nil }
            return transaction
        }
        // Without a transaction beside it there is nothing to tie it to: the route decides.
        guard !transactions.isEmpty else { return nil }
        let originals = Set(transactions.compactMap { $0.originalTransactionId.map(ExactIdentifier.init) })
        for (member, payload) in payloads {
            guard case .renewalInfo(let renewal) = payload,
                  renewal.originalTransactionId.map({ originals.contains(ExactIdentifier($0)) }) != true else { continue }
            return Refusal.signedData(member: member, verdict: .notVerified, code: ReceiptError.Code.appIdentityMismatch.name,
                           reason: "its originalTransactionId \(quoted(renewal.originalTransactionId)) is not that of a transaction in the body")
        }
        return nil
    }

    private static func firstDisagreement(_ payloads: [(String?, SignedPayload)], on name: String, code: ReceiptError.Code,
                                          _ value: (SignedPayload) -> String?) -> Refusal? {
        let named = payloads.compactMap { member, payload in value(payload).map { (member: member, value: $0) } }
        guard let first = named.first else { return nil }
        guard let other = named.first(where: { ExactIdentifier($0.value) != ExactIdentifier(first.value) }) else { return nil }
        return Refusal.signedData(member: other.member, verdict: .notVerified, code: code.name,
                       reason: "its \(name) \(quoted(other.value)) is not \(first.member ?? "the first token")'s \(quoted(first.value))")
    }

    private static func quoted(_ text: String?) -> String {
        text.map { "\"\(DisplayText.escape($0, limit: 200))\"" } ?? "none"
    }
}
