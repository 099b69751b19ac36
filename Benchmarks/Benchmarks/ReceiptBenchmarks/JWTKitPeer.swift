// The StoreKit 2 token benchmarks' peer: vapor/jwt-kit's X5CVerifier over the same tokens, in
// the same run. Built with the package's default trait JWTKitPeer; scripts/test builds the
// package without it (--disable-default-traits), so its compile check skips jwt-kit and the
// crypto stack under it.
#if JWTKitPeer
import Benchmark
import Foundation
import JWTKit
import ReceiptParser

/// A transaction as jwt-kit decodes it: Apple's documented members (the wire form), every one
/// optional, dates in milliseconds; `signedDate` is the instant jwt-kit judges the chain at.
struct JWTKitTransaction: JWTPayload, ValidationTimePayload {
    struct AdvancedCommerceInfo: Codable, Sendable {
        struct Descriptors: Codable, Sendable { var description: String?; var displayName: String? }
        struct Offer: Codable, Sendable { var period: String?; var periodCount: Int32?; var price: Int64?; var reason: String? }
        struct Refund: Codable, Sendable {
            var refundAmount: Int64?; var refundDate: Date?; var refundReason: String?; var refundType: String?
        }
        struct Item: Codable, Sendable {
            var SKU: String?; var description: String?; var displayName: String?; var offer: Offer?; var price: Int64?
            var refunds: [Refund]?; var revocationDate: Date?
        }
        var descriptors: Descriptors?; var estimatedTax: Int64?; var items: [Item]?; var period: String?
        var requestReferenceId: String?; var taxCode: String?; var taxExclusivePrice: Int64?; var taxRate: String?
    }
    struct CommitmentInfo: Codable, Sendable {
        var billingPeriodNumber: Int32?; var commitmentExpiresDate: Date?; var commitmentPrice: Int64?; var totalBillingPeriods: Int32?
    }
    var transactionId: String?, originalTransactionId: String?, webOrderLineItemId: String?
    var bundleId: String?, productId: String?, subscriptionGroupIdentifier: String?
    var purchaseDate: Date?, originalPurchaseDate: Date?, expiresDate: Date?
    var quantity: Int32?, type: String?, appAccountToken: UUID?, inAppOwnershipType: String?
    var signedDate: Date
    var revocationReason: Int32?, revocationDate: Date?, isUpgraded: Bool?, offerType: Int32?, offerIdentifier: String?
    var environment: String?, storefront: String?, storefrontId: String?, transactionReason: String?
    var currency: String?, price: Int64?, offerDiscountType: String?, appTransactionId: String?, offerPeriod: String?
    var revocationType: String?, revocationPercentage: Int32?, advancedCommerceInfo: AdvancedCommerceInfo?
    var billingPlanType: String?, commitmentInfo: CommitmentInfo?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// jwt-kit's X5CVerifier over `token`, its answer checked against ours once before timing.
func jwtKitBenchmark(token: TokenFixture, root: [UInt8], anchor: TrustAnchor) {
    let bytes = token.bytes
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .millisecondsSince1970
    Benchmark("jwt-kit X5CVerifier/\(token.name)") { benchmark async throws in
        let verifier = try X5CVerifier(rootCertificates: [root])
        // Judged at the token's signedDate, as SignedDataVerifier judges it (the Apple token's
        // leaf expired in 2023: at the current time jwt-kit refuses it).
        let first = try await verifier.verifyJWS(bytes, as: JWTKitTransaction.self, jsonDecoder: decoder,
                                                 validationTime: .signedDate)
        let ours = try SignedDataVerifier(anchor: anchor).verifyTransaction(bytes)
        precondition(first.transactionId == ours.transactionId
                     && abs(first.signedDate.timeIntervalSince(ours.signedDate!)) < 0.001)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await verifier.verifyJWS(bytes, as: JWTKitTransaction.self, jsonDecoder: decoder,
                                                   validationTime: .signedDate))
        }
    }
}
#endif
