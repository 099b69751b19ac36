import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// receipt-dump over StoreKit 2 signed data: real Apple tokens from ../shared/corpus/jws (skipped,
/// visibly, without it), their exit statuses, checks, formats, and inputs mixing receipts and tokens.
@Suite(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
struct SignedDataDumpTests {
    let tool = ReceiptDumpTests()
    static let tokens = Paths.corpus.appendingPathComponent("jws/tokens")
    static func token(_ name: String) -> String { tokens.appendingPathComponent("\(name).jws").path }
    static let notification = token("sandbox-notification-20251016T052202-REFUND")
    static let transaction = token("sandbox-transaction-20251016T052202-604840")
    static let renewal = token("sandbox-renewal-20251016T052202-orig993299")
    static let oldTransaction = token("sandbox-transaction-20221104T110125-445477")

    @Test func aNotificationVerifiesWithItsNestedTokens() throws {
        let run = try tool.run("--format", "json", "--json-layout", "compact", Self.notification)
        #expect(run.status == 0)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let token = try #require((result["tokens"] as? [[String: Any]])?.first)
        #expect(token["verdict"] as? String == "verified")
        #expect(token["kind"] as? String == "notification")
        #expect((token["payload"] as? [String: Any])?["notificationType"] as? String == "REFUND")
        let nested = try #require(token["nested"] as? [[String: Any]])
        #expect(nested.map { $0["member"] as? String } == ["data.signedTransactionInfo", "data.signedRenewalInfo"])
        #expect(nested.map { $0["verdict"] as? String } == ["verified", "verified"])
    }

    @Test func textShowsPeopleTheirWords() throws {
        let run = try tool.run("--no-color", Self.transaction)
        #expect(run.status == 0)
        #expect(run.output.contains("VERIFIED (appStore, SHA-256, certificates valid at 2025-10-16T05:22:02.788Z)"))
        #expect(run.output.contains("1.99 AUD (1990 milliunits)"))
        #expect(run.output.contains("2025-10-13T05:58:49Z (1760335129000)"))
        // The verdict and the chain come before the payload.
        let verdict = try #require(run.output.range(of: "Verdict:"))
        let chain = try #require(run.output.range(of: "Chain:"))
        let payload = try #require(run.output.range(of: "Payload:"))
        #expect(verdict.lowerBound < chain.lowerBound && chain.lowerBound < payload.lowerBound)
    }

    @Test func checksFailWithExitOneAndDoNotApplyWhereAKindHasNoSuchMember() throws {
        let otherApp = try tool.run("--format", "summary", "--bundle-id", "com.example", Self.transaction)
        #expect(otherApp.status == 1)
        #expect(otherApp.output.contains("not accepted (appIdentityMismatch)"))
        let renewal = try tool.run("--format", "summary", "--bundle-id", "com.example", Self.renewal)
        #expect(renewal.status == 0)                       // renewal info has no bundle id
        let production = try tool.run("--format", "summary", "--environment", "production", Self.renewal)
        #expect(production.status == 1)
        #expect(production.output.contains("environmentMismatch"))
        let sandbox = try tool.run("--format", "summary", "--environment", "sandbox", "--app-apple-id", "1470168868", Self.notification)
        #expect(sandbox.status == 0)
        let otherID = try tool.run("--format", "summary", "--app-apple-id", "1", Self.notification)
        #expect(otherID.status == 1)
    }

    @Test func atJudgesTheChainAtTheGivenInstantAndSaysSo() throws {
        let today = try tool.run("--format", "summary", "--at", "2026-11-01T00:00:00Z", Self.oldTransaction)
        #expect(today.status == 1)
        #expect(today.output.contains("certificateNotValidAtTime"))
        let then = try tool.run("--no-color", "--at", "2022-11-05T00:00:00Z", Self.oldTransaction)
        #expect(then.status == 0)
        #expect(then.output.contains("given with --at, not the signed date"))
    }

    @Test func unreadableTokensExitTwo() throws {
        let body = try tool.run(["--format", "summary", "-"], input: Array(#"{"signedPayload":"a","signedPayload":"b"}"#.utf8))
        #expect(body.status == 2)
        #expect(body.output.contains("duplicateKey"))
        var token = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.transaction)))
        token.insert(UInt8(ascii: " "), at: try #require(token.firstIndex(of: UInt8(ascii: "."))) + 40)  // inside the payload
        let spaced = try tool.run(["--format", "summary", "-"], input: token)
        #expect(spaced.status == 2)
        #expect(spaced.output.contains("malformedToken"))
    }

    @Test func bodiesAndDirectoriesMayMixTokensAndReceipts() throws {
        let transaction = try String(contentsOfFile: Self.transaction, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let renewal = try String(contentsOfFile: Self.renewal, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let body = #"{"signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)"}"#
        let both = try tool.run(["--format", "summary", "-"], input: Array(body.utf8))
        #expect(both.status == 0)
        #expect(both.output.contains("2 tokens (transaction,renewalInfo)"))
        // A renewal info where a transaction belongs is not verified.
        let swapped = #"{"signedTransactions":["\#(transaction)","\#(renewal)"]}"#
        let wrong = try tool.run(["--format", "summary", "-"], input: Array(swapped.utf8))
        #expect(wrong.status == 1)
        #expect(wrong.output.contains("wrongKind"))
        // A JSON Lines file of a receipt and a token: the receipt needs the test root, the token G3.
        let lines = FileManager.default.temporaryDirectory.appendingPathComponent("mixed-\(UUID()).jsonl")
        defer { try? FileManager.default.removeItem(at: lines) }
        try (try sampleBase64() + "\n" + transaction + "\n").write(to: lines, atomically: true, encoding: .utf8)
        let mixed = try tool.run("--format", "summary", "--jsonl", lines.path)
        #expect(mixed.output.split(separator: "\n").count == 2)
        #expect(mixed.output.contains("\tverified\tcom.loki-project.loki-messenger"))
        #expect(mixed.errors.contains("Totals: 1 receipt and 1 token, "))
    }

    @Test func creditedListsReconcileTransactionTokens() throws {
        let credited = FileManager.default.temporaryDirectory.appendingPathComponent("credited-\(UUID()).txt")
        defer { try? FileManager.default.removeItem(at: credited) }
        try "1\n".write(to: credited, atomically: true, encoding: .utf8)
        let run = try tool.run("--no-color", "--credited", credited.path, Self.notification)
        #expect(run.output.contains("Not yet credited (1): 2000001032604840"))
        #expect(run.output.contains("Credited but not in these tokens (1): 1"))
    }
}
