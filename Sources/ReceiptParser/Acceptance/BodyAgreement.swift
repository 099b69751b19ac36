/// The rule for several tokens that arrive together (the signed members of one JSON body, a
/// notification and its nested tokens): they speak for one app in one environment, and a renewal
/// info belongs to a transaction beside it. A token that breaks it did not verify
/// (``Verdict/notVerified``): genuine tokens put together by someone else are a forgery of the
/// whole, whatever each says alone.
///
/// - The bundle id, the environment and the App Apple ID, where two tokens both carry one, are
///   the same byte for byte as the first token's that carries it:
///   ``ReceiptError/Code/appIdentityMismatch`` or ``ReceiptError/Code/environmentMismatch``,
///   "its environment "Sandbox" is not signedTransactionInfo's "Production"".
/// - With a transaction beside it, a renewal info's `originalTransactionId` is one of theirs:
///   ``ReceiptError/Code/appIdentityMismatch``, "its originalTransactionId "7" is not that of a
///   transaction in the body".
///
/// Only tokens that verified and passed their checks take part; the others have failed already.
enum BodyAgreement {
    /// Applies the rule to `inspections`, after `reference` when given (a notification, whose
    /// nested tokens these are), failing each token that breaks it.
    static func apply(to inspections: inout [SignedDataInspection], reference: (name: String, payload: SignedPayload)? = nil) {
        var members: [(index: Int?, name: String, payload: SignedPayload)] = []
        if let reference { members.append((nil, reference.name, reference.payload)) }
        for (index, inspection) in inspections.enumerated() {
            guard inspection.failure == nil, case .success? = inspection.verification, let decoded = inspection.decoded else { continue }
            members.append((index, inspection.member ?? "the first token", decoded))
        }
        guard members.count > 1 else { return }
        let subjects = members.map { AcceptanceSubject($0.payload) }
        let environment = first(subjects) { $0.environment??.text }
        let bundleID = first(subjects) { $0.bundleID ?? nil }
        let appAppleID = first(subjects) { $0.appAppleID ?? nil }
        let originals = Set(members.compactMap { member -> ExactIdentifier? in
            guard case .transaction(let transaction) = member.payload else { return nil }
            return transaction.originalTransactionId.map(ExactIdentifier.init)
        })
        let hasTransaction = members.contains { if case .transaction = $0.payload { true } else { false } }
        for (position, member) in members.enumerated() {
            guard let index = member.index else { continue }
            let subject = subjects[position]
            var error: ReceiptError?
            if let environment, let own = subject.environment??.text, ExactIdentifier(own) != ExactIdentifier(environment.value) {
                error = ReceiptError(.environmentMismatch, "its environment \(quoted(own)) is not \(members[environment.at].name)'s \(quoted(environment.value))")
            } else if let bundleID, let own = subject.bundleID ?? nil, ExactIdentifier(own) != ExactIdentifier(bundleID.value) {
                error = ReceiptError(.appIdentityMismatch, "its bundle id \(quoted(own)) is not \(members[bundleID.at].name)'s \(quoted(bundleID.value))")
            } else if let appAppleID, let own = subject.appAppleID ?? nil, own != appAppleID.value {
                error = ReceiptError(.appIdentityMismatch, "its App Apple ID \(own) is not \(members[appAppleID.at].name)'s \(appAppleID.value)")
            } else if hasTransaction, case .renewalInfo(let renewal) = member.payload,
                      renewal.originalTransactionId.map({ originals.contains(ExactIdentifier($0)) }) != true {
                error = ReceiptError(.appIdentityMismatch, "its originalTransactionId \(quoted(renewal.originalTransactionId)) is not that of a transaction in the body")
            }
            if let error { inspections[index].verification = .failure(error) }
        }
    }

    /// The first value `member` gives, and where.
    private static func first<Value>(_ subjects: [AcceptanceSubject], _ member: (AcceptanceSubject) -> Value?) -> (value: Value, at: Int)? {
        for (position, subject) in subjects.enumerated() {
            if let value = member(subject) { return (value, position) }
        }
        return nil
    }

    private static func quoted(_ text: String?) -> String {
        text.map { "\"\(DisplayText.escape($0, limit: 200))\"" } ?? "none"
    }
}
