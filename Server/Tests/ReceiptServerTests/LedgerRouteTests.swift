import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import ReceiptTestSupport
import ServerTestSupport
import Testing
@testable import ReceiptServer

/// The ledger routes over HTTP: the token, crediting receipts and transactions, bindings, listings.
struct LedgerRouteTests {
    typealias Fixtures = LedgerFixtures

    static let routes: [(HTTPRequest.Method, String)] = [
        (.post, "/v1/credits"), (.put, "/v1/users/alice"), (.get, "/v1/uncredited"),
        (.get, "/v1/users/alice/credits"), (.get, "/v1/revoked"),
    ]

    @Test func withoutALedgerTheRoutesDoNotExist() async throws {
        try await buildApplication(try SignedDataFixtures.configuration(), logger: ServerTests.logger).test(.live) { client in
            for (method, uri) in Self.routes {
                let answer = try await Fixtures.send(client, method, uri, body: try Fixtures.receiptCredit(user: "alice"))
                #expect(answer.status == 404, "\(uri)")
            }
            let page = try await client.execute(uri: "/", method: .get) { String(buffer: $0.body) }
            #expect(!page.contains("Credit ledger"))
        }
    }

    @Test func everyRouteRequiresTheToken() async throws {
        try await Fixtures.withServer { client, ledger in
            let refused: [String?] = [nil, "Bearer wrong-token-wrong-token", "Bearer \(Fixtures.token)x", "Bearer \(Fixtures.token.dropLast())",
                                      "Bearer ", "Basic \(Fixtures.token)", Fixtures.token, "Bearer  \(Fixtures.token)"]
            for (method, uri) in Self.routes {
                for authorization in refused {
                    let answer = try await Fixtures.send(client, method, uri, body: try Fixtures.receiptCredit(user: "alice"),
                                                         authorization: authorization)
                    #expect(answer.status == 401, "\(uri) \(authorization ?? "none")")
                    #expect(answer.headers[.wwwAuthenticate] == "Bearer", "\(uri)")
                    #expect(RefusalShape.error(answer.json, verification: false)["code"] == "unauthorized", "\(uri)")
                }
            }
            // Nothing reached the ledger.
            #expect(try await ledger.uncredited(olderThan: -60).isEmpty)
            // The scheme in any case, as RFC 6750 allows.
            let lower = try await Fixtures.send(client, .get, "/v1/revoked", authorization: "bearer \(Fixtures.token)")
            #expect(lower.status == 200)
            #expect((lower.json["revoked"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func theTokenComparison() throws {
        let token = try LedgerToken(Fixtures.token)
        #expect(token.admits(authorization: "Bearer \(Fixtures.token)"))
        #expect(token.admits(authorization: "BEARER \(Fixtures.token)"))
        #expect(!token.admits(authorization: nil))
        #expect(!token.admits(authorization: "Bearer"))
        #expect(!token.admits(authorization: "Bearer \(Fixtures.token)\(Fixtures.token)"))
        #expect(!token.matches(Array(Fixtures.token.utf8.dropLast())))
        #expect(!token.matches([UInt8]()))
        #expect(token.matches(Array(Fixtures.token.utf8)))
    }

    @Test func aReceiptIsCreditedOnceToItsFirstUser() async throws {
        try await Fixtures.withServer { client, ledger in
            let first = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: "alice"))
            #expect(first.status == 200)
            #expect(Fixtures.ids(first.json, "credited").sorted() == Fixtures.sampleIds)
            #expect(Fixtures.ids(first.json, "alreadyCredited").isEmpty)
            #expect(Fixtures.ids(first.json, "conflicts").isEmpty)
            // Refunded before anyone was credited: never credited, to anyone.
            #expect(Fixtures.ids(first.json, "revoked") == [Fixtures.sampleCancelledId])
            #expect(first.json["user"] as? String == "alice")
            #expect(try await ledger.credits(of: "alice").map(\.transactionId).sorted() == Fixtures.sampleIds)

            let replay = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: "alice"))
            #expect(replay.status == 200)
            #expect(Fixtures.ids(replay.json, "credited").isEmpty)
            #expect(Fixtures.ids(replay.json, "alreadyCredited").sorted() == Fixtures.sampleIds)
            #expect(Fixtures.ids(replay.json, "revoked") == [Fixtures.sampleCancelledId])

            let other = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: "bob"))
            #expect(other.status == 200)
            #expect(Fixtures.ids(other.json, "conflicts").sorted() == Fixtures.sampleIds)
            #expect(Fixtures.ids(other.json, "credited").isEmpty)
            #expect(Fixtures.ids(other.json, "revoked") == [Fixtures.sampleCancelledId])

            let cancelled = try await Fixtures.send(client, .post, "/v1/credits",
                                                    body: try Fixtures.receiptCredit(user: "bob", #","transactionId":"2000000000000003""#))
            #expect(cancelled.status == 409)
            #expect(RefusalShape.error(cancelled.json, verification: false)["code"] == "transactionRevoked")
            #expect(RefusalShape.error(cancelled.json, verification: false)["member"] == "transactionId")

            let requested = try await Fixtures.send(client, .post, "/v1/credits",
                                                    body: try Fixtures.receiptCredit(user: "bob", #","transactionId":"2000000000000002""#))
            #expect(requested.status == 409)
            #expect(RefusalShape.error(requested.json, verification: false)["code"] == "creditedToAnotherUser")
            #expect(RefusalShape.error(requested.json, verification: false)["member"] == "transactionId")
            #expect(try await ledger.credits(of: "bob").isEmpty)
        }
    }

    @Test func aRequestedTransactionIsTheOnlyOneCredited() async throws {
        try await Fixtures.withServer { client, ledger in
            let missing = try await Fixtures.send(client, .post, "/v1/credits",
                                                  body: try Fixtures.receiptCredit(user: "alice", #","transactionId":"2000000000000009""#))
            #expect(missing.status == 422)
            #expect(RefusalShape.error(missing.json, verification: false)["code"] == "transactionNotInInput")
            #expect(try await ledger.credits(of: "alice").isEmpty)
            // Seen all the same: the input was verified.
            #expect(try await ledger.uncredited(olderThan: -60).count == 3)

            let one = try await Fixtures.send(client, .post, "/v1/credits",
                                              body: try Fixtures.receiptCredit(user: "alice", #","transactionId":"2000000000000002""#))
            #expect(one.status == 200)
            #expect(Fixtures.ids(one.json, "credited") == ["2000000000000002"])
        }
    }

    /// Forged, unreadable or refused input is answered as /v1/receipts or /v1/transactions answer
    /// it, and the ledger is untouched.
    @Test func refusedInputLeavesTheLedgerUntouched() async throws {
        let sample = Data(try Paths.fixture("sample.receipt")).base64EncodedString()
        try await Fixtures.withServer({ $0.acceptedBundleIDs = ["com.example.receiptparser.sample"] }) { client, ledger in
            let cases: [(String, String, Int, String)] = [
                ("forged signature", try Fixtures.receiptCredit(user: "alice", receipt: "tampered-signature.receipt"), 422, "signatureInvalid"),
                ("tampered payload", try Fixtures.receiptCredit(user: "alice", receipt: "tampered-payload.receipt"), 422, "signatureInvalid"),
                ("another root", try Fixtures.receiptCredit(user: "alice", receipt: "wrong-root.receipt"), 422, "untrustedChain"),
                ("not base64", #"{"user":"alice","receipt-data":"***"}"#, 422, "notBase64"),
                ("a JSON body inside receipt-data", #"{"user":"alice","receipt-data":"{\"receipt-data\":\"MIIB\"}"}"#, 422, "notBase64"),
                // A genuine receipt's body inside the string, after blanks or after base64: never credited.
                ("a receipt's JSON body after blanks", #"{"user":"alice","receipt-data":" \r\n\t{\"receipt-data\":\"\#(sample)\"}"}"#, 422, "notBase64"),
                ("a receipt's JSON body after base64", #"{"user":"alice","receipt-data":"MIIB{\"receipt-data\":\"\#(sample)\"}"}"#, 422, "notBase64"),
                ("forged token", try Fixtures.tokenCredit(user: "alice", "signature-flipped-bit.jws"), 422, "signatureInvalid"),
                ("unreadable token", #"{"user":"alice","signedTransaction":"abc.def"}"#, 400, "malformedToken"),
                ("renewal info, not a transaction", try Fixtures.tokenCredit(user: "alice", "renewal-info.jws"), 422, "wrongKind"),
                ("a body inside the string", #"{"user":"alice","signedTransaction":"{\"signedTransactionInfo\":\"x.y.z\"}"}"#, 400, "malformedToken"),
            ]
            for (label, body, status, code) in cases {
                let answer = try await Fixtures.send(client, .post, "/v1/credits", body: body)
                #expect(answer.status == status, "\(label): \(answer.json)")
                #expect(RefusalShape.error(answer.json, verification: true)["code"] == code, "\(label): \(answer.json)")
            }
            #expect(try await ledger.uncredited(olderThan: -60).isEmpty)
            #expect(try await ledger.credits(of: "alice").isEmpty)
        }
        // A genuine receipt of an app the server does not serve is refused too.
        try await Fixtures.withServer({ $0.acceptedBundleIDs = ["com.example.other"] }) { client, ledger in
            let answer = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: "alice"))
            #expect(answer.status == 422)
            #expect(RefusalShape.error(answer.json, verification: true)["code"] == "appIdentityMismatch")
            #expect(try await ledger.uncredited(olderThan: -60).isEmpty)
        }
    }

    @Test func malformedCreditBodiesAreRefusedNamingTheMember() async throws {
        try await Fixtures.withServer { client, ledger in
            let receipt = Data(try Paths.fixture("sample.receipt")).base64EncodedString()
            let cases: [(String, String, String?, String)] = [
                ("a misspelt transactionId", #"{"user":"alice","receipt-data":"\#(receipt)","transactionID":"1"}"#, "transactionID", "invalidRequest"),
                ("password", #"{"user":"alice","receipt-data":"\#(receipt)","password":"x"}"#, "password", "invalidRequest"),
                ("duplicate user", #"{"user":"alice","user":"bob","receipt-data":"\#(receipt)"}"#, nil, "duplicateKey"),
                ("not JSON", "user=alice", nil, "invalidJSON"),
                ("an array", "[]", nil, "invalidRequest"),
                ("no input", #"{"user":"alice"}"#, nil, "invalidRequest"),
                ("both inputs", #"{"user":"alice","receipt-data":"\#(receipt)","signedTransaction":"a.b.c"}"#, nil, "invalidRequest"),
                ("no user", #"{"receipt-data":"\#(receipt)"}"#, "user", "invalidRequest"),
                ("empty user", #"{"user":"","receipt-data":"\#(receipt)"}"#, "user", "invalidRequest"),
                ("user not a string", #"{"user":7,"receipt-data":"\#(receipt)"}"#, "user", "invalidRequest"),
                ("receipt-data not a string", #"{"user":"alice","receipt-data":5}"#, "receipt-data", "invalidRequest"),
                ("user too long", #"{"user":"\#(String(repeating: "é", count: 129))","receipt-data":"\#(receipt)"}"#, "user", "invalidRequest"),
                ("control in user", #"{"user":"ali\u0007ce","receipt-data":"\#(receipt)"}"#, "user", "invalidRequest"),
                ("empty transactionId", #"{"user":"alice","receipt-data":"\#(receipt)","transactionId":""}"#, "transactionId", "invalidRequest"),
            ]
            for (label, body, member, code) in cases {
                let answer = try await Fixtures.send(client, .post, "/v1/credits", body: body)
                #expect(answer.status == 400, "\(label): \(answer.json)")
                #expect(RefusalShape.error(answer.json, verification: false)["code"] == code, "\(label)")
                #expect(RefusalShape.error(answer.json, verification: false)["member"] == member, "\(label)")
            }
            #expect(try await ledger.uncredited(olderThan: -60).isEmpty)
            // 256 bytes is still a user id.
            let longest = String(repeating: "é", count: 128)
            let answer = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: longest))
            #expect(answer.status == 200)
            #expect(answer.json["user"] as? String == longest)
        }
    }

    @Test func transactionsWithAnAppAccountTokenGoToTheBoundUser() async throws {
        try await Fixtures.withServer { client, ledger in
            let unbound = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.tokenCredit(user: "alice"))
            #expect(unbound.status == 409)
            #expect(RefusalShape.error(unbound.json, verification: false)["code"] == "appAccountTokenMismatch")
            #expect(try await ledger.credits(of: "alice").isEmpty)

            let bind = try await Fixtures.send(client, .put, "/v1/users/alice", body: #"{"appAccountToken":"7E3FB20B-4CDB-47CC-936D-99D65F608138"}"#)
            #expect(bind.status == 200)
            #expect(bind.json["appAccountToken"] as? String == Fixtures.appAccountToken)
            #expect(bind.json["user"] as? String == "alice")

            let other = try await Fixtures.send(client, .put, "/v1/users/bob", body: #"{"appAccountToken":"00000000-0000-4000-8000-000000000001"}"#)
            #expect(other.status == 200)
            let mismatched = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.tokenCredit(user: "bob"))
            #expect(mismatched.status == 409)
            #expect(RefusalShape.error(mismatched.json, verification: false)["code"] == "appAccountTokenMismatch")

            let bound = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.tokenCredit(user: "alice"))
            #expect(bound.status == 200)
            #expect(Fixtures.ids(bound.json, "credited") == [Fixtures.jwsTransactionId])
            #expect(try await ledger.credits(of: "alice").map(\.transactionId) == [Fixtures.jwsTransactionId])
        }
        // A transaction without an appAccountToken goes to whoever claims it first.
        try await Fixtures.withServer { client, _ in
            let answer = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.tokenCredit(user: "carol", "transaction-minimal.jws"))
            #expect(answer.status == 200)
            #expect(Fixtures.ids(answer.json, "credited") == ["2000000000000301"])
            // A refunded transaction without an appAccountToken (transaction-nulls.jws) is never credited.
            let refunded = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.tokenCredit(user: "carol", "transaction-nulls.jws"))
            #expect(refunded.status == 200)
            #expect(Fixtures.ids(refunded.json, "credited").isEmpty)
            #expect(Fixtures.ids(refunded.json, "revoked") == ["2000000000000101"])
        }
    }

    @Test func bindingsArePermanent() async throws {
        try await Fixtures.withServer { client, _ in
            let body = #"{"appAccountToken":"\#(Fixtures.appAccountToken)"}"#
            #expect(try await Fixtures.send(client, .put, "/v1/users/alice", body: body).status == 200)
            #expect(try await Fixtures.send(client, .put, "/v1/users/alice", body: body).status == 200)
            let otherToken = try await Fixtures.send(client, .put, "/v1/users/alice", body: #"{"appAccountToken":"00000000-0000-4000-8000-000000000001"}"#)
            #expect(otherToken.status == 409)
            #expect(RefusalShape.error(otherToken.json, verification: false)["code"] == "bindingConflict")
            let otherUser = try await Fixtures.send(client, .put, "/v1/users/bob", body: body)
            #expect(otherUser.status == 409)
            #expect(RefusalShape.error(otherUser.json, verification: false)["code"] == "bindingConflict")

            let bad: [(String, String?)] = [
                (#"{"appAccountToken":"not-a-uuid"}"#, "appAccountToken"), (#"{"appAccountToken":7}"#, "appAccountToken"),
                ("{}", "appAccountToken"), (#"{"appAccountToken":"\#(Fixtures.appAccountToken)","user":"x"}"#, "user"),
                (#"{"appAccountToken":"a","appAccountToken":"b"}"#, nil),
            ]
            for (body, member) in bad {
                let answer = try await Fixtures.send(client, .put, "/v1/users/carol", body: body)
                #expect(answer.status == 400, "\(body)")
                #expect(RefusalShape.error(answer.json, verification: false)["member"] == member, "\(body)")
            }
        }
    }

    /// Hummingbird hands path parameters over percent-encoded: the routes decode them once.
    @Test func userIdsInThePathArePercentDecoded() async throws {
        try await Fixtures.withServer { client, _ in
            let credit = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: "a b/c+d%"))
            #expect(credit.status == 200)
            let credits = try await Fixtures.send(client, .get, "/v1/users/a%20b%2Fc+d%25/credits")
            #expect(credits.status == 200)
            #expect(credits.json["user"] as? String == "a b/c+d%")
            #expect(Fixtures.rows(credits.json, "credits").count == 2)
            // Not decoded twice: %2520 is "%20", another user.
            let other = try await Fixtures.send(client, .get, "/v1/users/a%2520b%2Fc+d%25/credits")
            #expect(other.json["user"] as? String == "a%20b/c+d%")
            #expect(Fixtures.rows(other.json, "credits").isEmpty)

            let bind = try await Fixtures.send(client, .put, "/v1/users/%C3%A9ve%20x", body: #"{"appAccountToken":"\#(Fixtures.appAccountToken)"}"#)
            #expect(bind.json["user"] as? String == "éve x")
            for bad in ["/v1/users/%zz/credits", "/v1/users/%FF/credits", "/v1/users/a%07b/credits"] {
                let answer = try await Fixtures.send(client, .get, bad)
                #expect(answer.status == 400, "\(bad)")
                #expect(RefusalShape.error(answer.json, verification: false)["member"] == "user", "\(bad)")
            }
        }
    }

    @Test func listingsGiveExactValues() async throws {
        let clock = TestClock()
        try await Fixtures.withServer(clock: { clock.now }) { client, ledger in
            let credit = try await Fixtures.send(client, .post, "/v1/credits",
                                                 body: try Fixtures.receiptCredit(user: "alice", #","transactionId":"2000000000000002""#))
            #expect(credit.status == 200)
            clock.advance(by: 60)

            let uncredited = try await Fixtures.send(client, .get, "/v1/uncredited?olderThan=30")
            #expect(uncredited.status == 200)
            let rows = Fixtures.rows(uncredited.json, "uncredited")
            #expect(rows.count == 2)
            #expect(rows.first as NSDictionary? == [
                "transactionId": "2000000000000001", "originalTransactionId": "2000000000000001", "productId": "com.example.coins.100",
                "bundleId": "com.example.receiptparser.sample", "environment": "Sandbox", "purchaseDate": "2025-05-01T10:00:00.000Z",
                "firstSeenAt": "2023-11-14T22:13:20.000Z", "source": "receipt",
            ] as NSDictionary)
            // Refunded and never credited: shown with the missed orders, with its revocation.
            #expect(rows.last as NSDictionary? == [
                "transactionId": "2000000000000003", "originalTransactionId": "2000000000000003", "productId": "com.example.unlock",
                "bundleId": "com.example.receiptparser.sample", "environment": "Sandbox", "purchaseDate": "2025-04-02T06:00:00.000Z",
                "firstSeenAt": "2023-11-14T22:13:20.000Z", "source": "receipt",
                "revokedAt": "2025-04-10T07:00:00.000Z", "revocationReason": "cancelled in receipt",
            ] as NSDictionary)
            #expect(Fixtures.rows(try await Fixtures.send(client, .get, "/v1/uncredited?olderThan=61").json, "uncredited").isEmpty)
            #expect(Fixtures.rows(try await Fixtures.send(client, .get, "/v1/uncredited?olderThan=0&limit=1").json, "uncredited").count == 1)
            #expect(Fixtures.rows(try await Fixtures.send(client, .get, "/v1/uncredited").json, "uncredited").count == 2)

            let credits = try await Fixtures.send(client, .get, "/v1/users/alice/credits")
            #expect(credits.status == 200)
            #expect(Fixtures.rows(credits.json, "credits") as [NSDictionary] == [[
                "transactionId": "2000000000000002", "user": "alice", "productId": "com.example.pro.monthly",
                "creditedAt": "2023-11-14T22:13:20.000Z",
            ]])
            #expect(credits.json["user"] as? String == "alice")
            // The credit revoked since, with the values /v1/revoked gives (a REFUND's are in LedgerNotificationTests).
            #expect(try await ledger.markRevoked(transactionId: "2000000000000002", at: Date(timeIntervalSince1970: 1_750_000_000), reason: "REFUND"))
            let revoked = try await Fixtures.send(client, .get, "/v1/revoked?limit=10")
            #expect(revoked.status == 200)
            #expect(Fixtures.rows(revoked.json, "revoked") as [NSDictionary] == [[
                "transactionId": "2000000000000002", "user": "alice", "productId": "com.example.pro.monthly",
                "creditedAt": "2023-11-14T22:13:20.000Z", "revokedAt": "2025-06-15T15:06:40.000Z", "revocationReason": "REFUND",
            ]])
            #expect(revoked.json["user"] == nil)
        }
    }

    @Test func listingQueriesAreChecked() async throws {
        try await Fixtures.withServer { client, _ in
            let bad: [(String, String)] = [
                ("/v1/uncredited?olderThan=-1", "olderThan"), ("/v1/uncredited?olderThan=1.5", "olderThan"),
                ("/v1/uncredited?olderThan=", "olderThan"), ("/v1/uncredited?limit=0", "limit"),
                ("/v1/uncredited?limit=10001", "limit"), ("/v1/uncredited?limit=1&limit=2", "limit"),
                ("/v1/uncredited?older=5", "older"), ("/v1/revoked?olderThan=5", "olderThan"),
                ("/v1/users/alice/credits?limit=x", "limit"),
            ]
            for (uri, member) in bad {
                let answer = try await Fixtures.send(client, .get, uri)
                #expect(answer.status == 400, "\(uri)")
                #expect(RefusalShape.error(answer.json, verification: false)["member"] == member, "\(uri)")
            }
            #expect(try await Fixtures.send(client, .get, "/v1/uncredited?limit=10000&olderThan=0").status == 200)
        }
    }

    /// A database that cannot take the write answers 503 with Retry-After, never 200, and holds
    /// no credit.
    @Test func aFullDatabaseAnswers503() async throws {
        try await Fixtures.withServer(makeStore: Fixtures.smallStore) { client, ledger in
            // Fill it to the last page.
            await Fixtures.fill(ledger)
            let answer = try await Fixtures.send(client, .post, "/v1/credits", body: try Fixtures.receiptCredit(user: "alice"))
            #expect(answer.status == 503)
            #expect(answer.headers[.retryAfter] == "1")
            #expect(RefusalShape.error(answer.json, verification: false)["code"] == "storageUnavailable")
            #expect(try await ledger.credits(of: "alice").isEmpty)
        }
    }

    @Test func fiftyUsersRacingForOneTransactionCreditOne() async throws {
        try await Fixtures.withServer({ $0.maximumConcurrentVerifications = 64; $0.verificationTimeoutSeconds = 60 }) { client, ledger in
            let answers = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
                for user in 0..<50 {
                    group.addTask {
                        let answer = try await Fixtures.send(client, .post, "/v1/credits",
                                                             body: try Fixtures.receiptCredit(user: "user-\(user)", #","transactionId":"2000000000000002""#))
                        return (answer.status, Fixtures.ids(answer.json, "credited"))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 50)
            #expect(answers.filter { $0.0 == 200 && $0.1 == ["2000000000000002"] }.count == 1)
            #expect(answers.filter { $0.0 == 409 }.count == 49)
            var holders = 0
            for user in 0..<50 { holders += try await ledger.credits(of: "user-\(user)").count }
            #expect(holders == 1)
        }
    }
}
