#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReceiptParser

// What receipt-dump reports of an input that holds StoreKit 2 signed data: one inspection per
// token (a bare token, or each signed member of a JSON body), the worst of them deciding the
// verdict and the exit status, as the worst receipt does for a batch.

extension DumpResult {
    /// Reads and verifies the tokens in `input` with the settings' signed-data verifier.
    static func makeSignedData(name: String, input: [UInt8], settings: DumpSettings) -> DumpResult {
        let options = InspectionOptions(decodesUnverified: true, summarizesCertificates: settings.wantsCertificates)
        let tokens = settings.signedDataVerifier.inspectAll(input, options: options)
        var result = inspected(name: name, tokens: tokens, by: settings.signedDataVerifier, statusTime: settings.statusTime)
        result.tokensVerified = settings.verifier != nil
        if !result.tokensVerified { result.subscriptions = nil }
        if let credited = settings.credited {
            let ids = tokens.flatMap(Self.transactionIDs)
            result.reconciliation = Reconciliation(
                notCredited: ids.filter { !credited.contains($0) }.map(\.text),
                notInReceipt: credited.subtracting(Set(ids)).sorted().map(\.text))
        }
        return result
    }

    /// The report of tokens inspected elsewhere by `verifier` (an answer of Apple's API, each
    /// named by its member), with the subscriptions they describe at `statusTime`.
    public static func inspected(name: String, tokens: [SignedDataInspection], by verifier: SignedDataVerifier,
                                 statusTime: Date) -> DumpResult {
        var result = DumpResult(file: name)
        result.tokens = tokens
        if case .instant(let instant) = verifier.policy.validationTime { result.tokensJudgedAt = instant }
        var snapshots = SubscriptionSnapshots()
        for token in tokens { snapshots.record(token) }
        let entries = snapshots.subscriptions(at: statusTime)
        if !entries.isEmpty { result.subscriptions = (statusTime, entries) }
        return result
    }

    /// The transaction ids of a transaction token, or of a notification's nested transaction.
    private static func transactionIDs(_ inspection: SignedDataInspection) -> [ExactIdentifier] {
        var ids: [ExactIdentifier] = []
        if inspection.kind == .transaction, case .string(let id)? = inspection.payload?["transactionId"] {
            ids.append(ExactIdentifier(id))
        }
        return ids + inspection.nested.flatMap(transactionIDs)
    }

    /// The verdict of one token as this run reports it: with `--no-verify`, readable tokens are
    /// not checked.
    func verdict(of token: SignedDataInspection) -> Verdict {
        SupportView.verdict(of: token, verified: tokensVerified)
    }

    /// The worst verdict over the tokens: unreadable, then not verified, then not accepted.
    var tokensVerdict: Verdict {
        let verdicts = (tokens ?? []).map(verdict(of:))
        for worst in [Verdict.unreadable, .notVerified, .notAccepted, .notChecked] where verdicts.contains(worst) {
            return worst
        }
        return .verified
    }

    /// 2 when a token is unreadable, 1 when one is not verified or a check failed, else 0.
    var tokensExitStatus: Int32 {
        switch tokensVerdict {
        case .unreadable: 2
        case .notVerified, .notAccepted, .unavailable: 1
        case .verified, .notChecked: 0
        }
    }

    /// The first token's failure, named by its member.
    var tokensProblem: Problem? {
        for token in tokens ?? [] {
            guard let failure = token.failure, tokensVerified || token.readError != nil else { continue }
            return Problem(code: failure.code.name, reason: token.member.map { "\($0): " } .map { $0 + failure.reason } ?? failure.reason)
        }
        return nil
    }
}
