import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The typed entry points (`verifyTransaction` and the others) and the typed payload an
/// inspection keeps and writes, over the JWS test PKI's tokens in TestReceipts/jws.
struct SignedDataTypedAPITests {
    static func token(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Paths.fixtures.appendingPathComponent("jws/\(name)")))
    }

    static func verifier(_ expectations: AcceptanceExpectations = AcceptanceExpectations()) throws -> SignedDataVerifier {
        SignedDataVerifier(anchor: try .appStore(rootCertificate: pki("jws-root.der")), expectations: expectations)
    }

    /// The fixtures with every documented field leave no member unknown.
    @Test func everyKindVerifiesTyped() throws {
        let verifier = try Self.verifier()
        let transaction = try verifier.verifyTransaction(Self.token("transaction.jws"))
        #expect(transaction.transactionId == "2000000000000101")
        #expect(transaction.type == .autoRenewableSubscription && transaction.quantity == 1)
        #expect(transaction.signedDate == Date(timeIntervalSince1970: 1_748_779_200))
        #expect(transaction.unknownFields.isEmpty, "\(transaction.unknownFields.map(\.key))")

        let renewal = try verifier.verifyRenewalInfo(Self.token("renewal-info.jws"))
        #expect(renewal.renewalPrice == 99990 && renewal.expirationIntent == .billingError && renewal.autoRenewStatus == .on)
        #expect(renewal.unknownFields.isEmpty, "\(renewal.unknownFields.map(\.key))")

        let app = try verifier.verifyAppTransaction(Self.token("app-transaction.jws"))
        #expect(app.appAppleId == 1_234_567_890 && app.originalPlatform == .iOS && app.environment == "Production")
        #expect(app.unknownFields.isEmpty, "\(app.unknownFields.map(\.key))")

        let notification = try verifier.verifyNotification(Self.token("notification-subscribed.jws"))
        #expect(notification.notificationType == .subscribed && notification.subtype == .initialBuy)
        #expect(notification.bundleId == "com.example.receiptparser.sample" && notification.environment == "Sandbox")
        let nested = try verifier.verifyTransaction(Array(try #require(notification.data?.signedTransactionInfo).utf8))
        #expect(nested.bundleId == notification.bundleId)

        let int64 = try verifier.verifyTransaction(Self.token("transaction-int64.jws"))
        #expect(int64.price == Int64.max && int64.quantity == Int32.max)
    }

    @Test func failuresAreThrown() throws {
        let verifier = try Self.verifier()
        #expect(throws: ReceiptError(.wrongKind, "")) { try verifier.verifyRenewalInfo(Self.token("transaction.jws")) }
        #expect(throws: ReceiptError(.wrongValueType, "")) { try verifier.verifyTransaction(Self.token("type-price-string.jws")) }
        #expect(throws: ReceiptError(.untrustedChain, "")) { try SignedDataVerifier().verifyTransaction(Self.token("transaction.jws")) }
        // A failed expectation is a failure too.
        let other = try Self.verifier(AcceptanceExpectations(bundleIDs: ["com.example.other"]))
        #expect(throws: ReceiptError(.appIdentityMismatch, "")) { try other.verifyTransaction(Self.token("transaction.jws")) }
        let production = try Self.verifier(AcceptanceExpectations(environment: .production))
        #expect(throws: ReceiptError(.environmentMismatch, "")) { try production.verifyNotification(Self.token("notification-subscribed.jws")) }
    }

    @Test func theInspectionKeepsAndWritesTheTypedPayload() throws {
        let inspection = try Self.verifier().inspect(Self.token("transaction.jws"))
        guard case .transaction(let transaction)? = inspection.decoded else {
            Issue.record("no typed payload")
            return
        }
        #expect(transaction.productId == "com.example.pro.monthly")
        var json = JSONWriter()
        inspection.write(to: &json)
        let written = try #require(try JSONSerialization.jsonObject(with: Data(json.finishString().utf8)) as? [String: Any])
        let payload = try #require(written["payload"] as? [String: Any])
        #expect(payload["signedDate"] as? String == "2025-06-01T12:00:00.000Z")
        #expect(payload["price"] as? Int == transaction.price.map(Int.init))

        // A member of another type: unreadable, with the field named.
        let wrong = try Self.verifier().inspect(Self.token("type-app-apple-id-string.jws"))
        #expect(wrong.verdict == .unreadable && wrong.readError?.code == .wrongValueType)
        #expect(wrong.readError?.reason.contains("data.appAppleId is a string") == true, "\(wrong.readError?.reason ?? "")")
    }
}
