import AppleSimulator
import AppStoreServerAPI
@preconcurrency import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptParser
import Testing
@testable import ReceiptServer

/// `POST /v1/offers/...`: StoreKit's offer signatures made with the server's key, checked here
/// by swift-crypto with the key's public half (an implementation other than the server's OpenSSL).
struct OfferRouteTests {
    static func publicKey(_ simulator: AppleSimulator) throws -> P256.Signing.PublicKey {
        try P256.Signing.PrivateKey(pemRepresentation: simulator.privateKeyPEM).publicKey
    }

    static func base64url(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    @Test func offersAreSignedWithTheServersKey() async throws {
        let simulator = try AppleSimulator()
        try await ReconcileTests.withServer(simulator, port: 9) { client in
            let key = try Self.publicKey(simulator)
            let v2 = try await LedgerFixtures.send(client, .post, "/v1/offers/promotional-v2",
                                                   body: #"{"productId":"com.example.monthly","offerIdentifier":"WINBACK","transactionId":"11"}"#)
            #expect(v2.status == 200, "\(v2.json)")
            let parts = try #require(v2.json["jws"] as? String).split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            let payload = try #require(Self.base64url(parts[1]))
            let claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            #expect(claims["aud"] as? String == "promotional-offer" && claims["bid"] as? String == simulator.bundleID
                    && claims["iss"] as? String == simulator.issuerID && claims["offerIdentifier"] as? String == "WINBACK"
                    && claims["transactionId"] as? String == "11")
            #expect(claims["iat"] as? Int == Int(ReconcileTests.now.timeIntervalSince1970), "the ledger's clock is the time signed")
            let raw = try #require(Self.base64url(parts[2]))
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: raw)
            #expect(key.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))

            let eligibility = try await LedgerFixtures.send(client, .post, "/v1/offers/introductory-eligibility",
                                                            body: #"{"productId":"p","allowIntroductoryOffer":false,"transactionId":"11"}"#)
            let eligibilityJWS = try #require(eligibility.json["jws"] as? String).split(separator: ".").map(String.init)
            let eligibilityPayload = try #require(Self.base64url(eligibilityJWS[1]))
            let eligibilityClaims = try #require(try JSONSerialization.jsonObject(with: eligibilityPayload) as? [String: Any])
            #expect(eligibilityClaims["aud"] as? String == "introductory-offer-eligibility" && eligibilityClaims["allowIntroductoryOffer"] as? Bool == false)

            let v1 = try await LedgerFixtures.send(client, .post, "/v1/offers/promotional",
                                                   body: #"{"productId":"com.example.monthly","offerIdentifier":"WINBACK","appAccountToken":"ABC"}"#)
            let nonce = try #require(v1.json["nonce"] as? String), timestamp = try #require(v1.json["timestamp"] as? Int)
            let text = [simulator.bundleID, simulator.keyID, "com.example.monthly", "WINBACK", "abc", nonce, String(timestamp)].joined(separator: "\u{2063}")
            let encoded = try #require(v1.json["signature"] as? String)
            let der = try #require(Data(base64Encoded: encoded))
            #expect(key.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: der), for: Data(text.utf8)))
            #expect(v1.json["keyIdentifier"] as? String == simulator.keyID)

            // Closed bodies: a misspelt or missing member is refused by name; no token, no signature.
            let misspelt = try await LedgerFixtures.send(client, .post, "/v1/offers/promotional-v2", body: #"{"productId":"p","offerID":"x"}"#)
            #expect(misspelt.status == 400 && (misspelt.json["error"] as? [String: Any])?["member"] as? String == "offerID")
            let missing = try await LedgerFixtures.send(client, .post, "/v1/offers/introductory-eligibility", body: #"{"productId":"p"}"#)
            #expect(missing.status == 400 && (missing.json["error"] as? [String: Any])?["member"] as? String == "allowIntroductoryOffer")
            #expect(try await LedgerFixtures.send(client, .post, "/v1/offers/promotional", body: "{}", authorization: nil).status == 401)
        }
        try await ReconcileTests.withServer(simulator, port: nil) { client in
            let answer = try await LedgerFixtures.send(client, .post, "/v1/offers/promotional-v2", body: #"{"productId":"p","offerIdentifier":"o"}"#)
            #expect(answer.status == 404 && (answer.json["error"] as? [String: Any])?["code"] as? String == "appStoreNotConfigured")
        }
    }
}
