import ReceiptParser
import ReceiptReports

/// What is kept of one receipt once it is rendered.
struct Outcome: Sendable {
    let output: String
    let exitStatus: Int32
    let verdict: Verdict
    let failedCheck: Bool
    /// A StoreKit 2 token (or a JSON body of them) rather than a receipt.
    let isSignedData: Bool

    init(_ result: DumpResult, _ renderer: Renderer) {
        output = renderer.render(result)
        exitStatus = result.exitStatus
        verdict = result.verdict
        failedCheck = result.checks.contains { !$0.passed }
            || (result.tokens?.contains { $0.checks.contains { $0.outcome == .failed } } ?? false)
        isSignedData = result.tokens != nil
    }
}
