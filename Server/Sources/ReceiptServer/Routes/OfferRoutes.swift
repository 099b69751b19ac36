import Foundation
import Hummingbird
import ReceiptParser

/// The signatures StoreKit takes for offers, made with the server's App Store key (ledger token
/// required; 404 `appStoreNotConfigured` without credentials):
/// - `POST /v1/offers/promotional` `{productId, offerIdentifier, appAccountToken?}` →
///   `{keyIdentifier, nonce, signature, timestamp}` (the original API's signature).
/// - `POST /v1/offers/promotional-v2` `{productId, offerIdentifier, transactionId?}` → `{jws}`.
/// - `POST /v1/offers/introductory-eligibility` `{productId, allowIntroductoryOffer, transactionId}` → `{jws}`.
struct OfferRoutes {
    let service: ReceiptService
    let ledger: ServerLedger

    var routes: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self).add(middleware: LedgerTokenMiddleware(token: ledger.token))
        let service = self.service
        let signer = ledger.appStore.map { OfferSigner($0.client.credentials) }
        let clock = ledger.ledger

        routes.post("v1/offers/promotional") { request, _ in
            let body = try await service.readBody(request)
            let offer = try OfferRequest(body: body, members: ["productId", "offerIdentifier", "appAccountToken"], required: ["productId", "offerIdentifier"],
                                         expected: "an offer names productId and offerIdentifier, and optionally appAccountToken")
            let signer = try Self.required(signer)
            let nonce = UUID()
            let timestamp = Int64((clock.now().timeIntervalSince1970 * 1000).rounded(.down))
            let signed = signer.promotionalOfferSignature(productIdentifier: offer.productId, offerIdentifier: offer.offerIdentifier ?? "",
                                                          appAccountToken: offer.appAccountToken ?? "", nonce: nonce, timestamp: timestamp)
            return Response.json { json in
                json.beginObject()
                json.key("keyIdentifier"); json.string(signer.keyID)
                json.key("nonce"); json.string(nonce.uuidString.lowercased())
                json.key("signature"); json.string(signed.signature)
                json.key("timestamp"); json.number(timestamp)
                json.endObject()
            }
        }

        routes.post("v1/offers/promotional-v2") { request, _ in
            let body = try await service.readBody(request)
            let offer = try OfferRequest(body: body, members: ["productId", "offerIdentifier", "transactionId"], required: ["productId", "offerIdentifier"],
                                         expected: "an offer names productId and offerIdentifier, and optionally transactionId")
            let jws = try Self.required(signer).promotionalOfferV2(productId: offer.productId, offerIdentifier: offer.offerIdentifier ?? "",
                                                                   transactionId: offer.transactionId, issuedAt: clock.now(), nonce: UUID())
            return Self.jws(jws)
        }

        routes.post("v1/offers/introductory-eligibility") { request, _ in
            let body = try await service.readBody(request)
            let offer = try OfferRequest(body: body, members: ["productId", "allowIntroductoryOffer", "transactionId"],
                                         required: ["productId", "allowIntroductoryOffer", "transactionId"],
                                         expected: "an eligibility names productId, allowIntroductoryOffer and transactionId")
            let jws = try Self.required(signer).introductoryOfferEligibility(
                productId: offer.productId, allowIntroductoryOffer: offer.allowIntroductoryOffer ?? false,
                transactionId: offer.transactionId ?? "", issuedAt: clock.now(), nonce: UUID())
            return Self.jws(jws)
        }
        return routes
    }

    static func jws(_ jws: String) -> Response {
        Response.json { json in
            json.beginObject()
            json.key("jws"); json.string(jws)
            json.endObject()
        }
    }

    static func required(_ signer: OfferSigner?) throws -> OfferSigner {
        guard let signer else {
            throw Refusal(.notFound, code: "appStoreNotConfigured",
                          reason: "the server has no App Store key (--app-store-key-file, --app-store-key-id, --app-store-issuer-id)")
        }
        return signer
    }
}
