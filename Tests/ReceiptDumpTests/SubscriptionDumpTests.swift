import Foundation
import Testing
import ReceiptTestSupport

/// receipt-dump's "Subscriptions at T" for tokens: what the verified tokens of one input say of
/// each subscription at `--active-at` (else `--at`, else now), by the library's rules
/// (SubscriptionRulesTests), in text and in JSON; nothing from tokens that were not verified.
struct SubscriptionDumpTests {
    let tool = ReceiptDumpTests()
    static let root = Paths.fixtures.appendingPathComponent("pki/jws-root.der").path
    static func fixture(_ name: String) -> String { Paths.fixtures.appendingPathComponent("jws/\(name)").path }

    func subscriptions(_ arguments: String..., verifying: Bool = true) throws -> [String: Any]? {
        let run = try tool.run(["--format", "json", "--json-layout", "compact"] + (verifying ? ["--root", Self.root] : []) + arguments)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        return result["subscriptions"] as? [String: Any]
    }

    /// A history of two purchases of one subscription: the later decides; active until its
    /// expiresDate (2025-07-01T11:59:00Z), expired from then.
    @Test func aTransactionHistoryGivesItsSubscriptionAtTheInstantAsked() throws {
        let history = Self.fixture("body-transaction-history.json")
        let before = try #require(try subscriptions("--active-at", "2025-06-15T00:00:00Z", history))
        #expect(before["at"] as? String == "2025-06-15T00:00:00.000Z")
        let entry = try #require((before["entries"] as? [[String: Any]])?.first)
        #expect(entry["status"] as? String == "active" && entry["entitled"] as? Bool == true)
        #expect(entry["originalTransactionId"] as? String == "2000000000000100")
        #expect(entry["transactionId"] as? String == "2000000000000203")
        #expect(entry["expiresDate"] as? String == "2025-07-01T11:59:00.000Z")
        #expect(entry["gracePeriodExpiresDate"] is NSNull && entry["autoRenewStatus"] is NSNull)
        let after = try #require(try subscriptions("--active-at", "2025-07-01T11:59:00Z", history))
        #expect((after["entries"] as? [[String: Any]])?.first?["status"] as? String == "expired")

        let text = try tool.run("--no-color", "--root", Self.root, "--active-at", "2025-06-15T00:00:00Z", history).output
        #expect(text.contains("Subscriptions at 2025-06-15T00:00:00Z (1):"))
        #expect(text.contains("com.example.pro.monthly (original 2000000000000100): active, entitled; latest 2000000000000203, expires 2025-07-01T11:59:00Z"))
    }

    /// A notification's renewal info says whether it renews; `--at` is the instant when
    /// `--active-at` is not given.
    @Test func aNotificationAddsItsRenewalInfo() throws {
        let subscriptions = try #require(try subscriptions("--at", "2025-06-15T00:00:00Z", Self.fixture("notification-subscribed.jws")))
        let entry = try #require((subscriptions["entries"] as? [[String: Any]])?.first)
        #expect(entry["status"] as? String == "active")
        #expect(entry["autoRenewStatus"] as? Bool == true)
        #expect(entry["autoRenewProductId"] as? String == "com.example.pro.monthly")
    }

    /// Data not verified, or not accepted, says nothing about anyone's subscription.
    @Test func nothingFromTokensNotVerified() throws {
        #expect(try subscriptions("--no-verify", Self.fixture("body-transaction-history.json"), verifying: false) == nil)
        #expect(try subscriptions(Self.fixture("tampered-payload.jws")) == nil)
        // Genuine, but for another app: not this user's subscription either.
        #expect(try subscriptions("--bundle-id", "com.example.other", Self.fixture("body-transaction-history.json")) == nil)
        #expect(try subscriptions(Self.fixture("renewal-info.jws")) == nil)  // renewal info alone: no transaction
    }
}
