import AppleSimulator
import Foundation
import ReceiptParser
import Testing
@testable import AppStoreServerAPI

/// The client against the offline Apple: every call's answer verified and read, Apple's JWT
/// checks passed, and each fault ending as the issue says, within its deadline.
@Suite(.timeLimit(.minutes(2)))
struct AppStoreServerAPIClientTests {
    @Test func everyCallAnswersWithVerifiedValues() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production, revokeLast: true) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings())
            defer { Task { try await client.shutdown() } }

            let info = try await client.transactionInfo("2")
            #expect(info.signedTransactionInfo.payload.transactionId == "2" && info.answer.environment == .production)

            // Three transactions on pages of two: every page, in order.
            let history = try await client.transactionHistory("1")
            #expect(history.count == 2 && history.flatMap(\.signedTransactions).map(\.payload.transactionId) == ["1", "2", "3"])
            #expect(history.last?.revision == "rev-3" && history.last?.hasMore == false && history[0].bundleId == simulator.bundleID)

            let refunds = try await client.refundHistory("1")
            #expect(refunds.flatMap(\.signedTransactions).map(\.payload.transactionId) == ["3"] && refunds[0].signedTransactions[0].payload.revocationDate != nil)

            let statuses = try await client.subscriptionStatuses("1")
            let last = try #require(statuses.data.first?.lastTransactions.first)
            #expect(statuses.data.count == 1 && last.status == .active && last.originalTransactionId == "1")
            #expect(last.signedTransactionInfo?.payload.transactionId == "3" && last.signedRenewalInfo?.payload.originalTransactionId == "1")
            #expect(statuses.answer.tokens.map(\.member) == ["data[0].lastTransactions[0].signedTransactionInfo", "data[0].lastTransactions[0].signedRenewalInfo"])

            let order = try await client.lookUpOrder("MORDER1")
            #expect(order.status == .valid && order.signedTransactions.map(\.payload.transactionId) == ["1"])
            #expect(try await client.lookUpOrder("MNOSUCH").status == .invalid)

            let window = NotificationHistoryRequest(startDate: AppleSimulator.signedDate.addingTimeInterval(-1), endDate: AppleSimulator.signedDate.addingTimeInterval(3600))
            let items = try await client.notificationHistory(window).flatMap(\.notificationHistory)
            let notifications = items.compactMap(\.signedPayload?.payload)
            #expect(notifications.map { $0.notificationType?.rawValue } == ["SUBSCRIBED", "DID_RENEW", "DID_RENEW", "DID_CHANGE_RENEWAL_STATUS"])
            var failures = window
            failures.onlyFailures = true
            #expect(items.allSatisfy { $0.sendAttempts.first?.sendAttemptResult != nil && $0.sendAttempts.first?.attemptDate != nil })
            let failed = try await client.notificationHistory(failures).flatMap(\.notificationHistory)
            #expect(failed.count == 2 && failed.allSatisfy { $0.sendAttempts.contains { $0.sendAttemptResult != .success } })

            let test = try await client.requestTestNotification()
            #expect(try await client.testNotificationStatus(test.testNotificationToken).signedPayload?.payload.notificationType?.rawValue == "TEST")

            #expect(try await client.appTransactionInfo("1").signedAppTransactionInfo.payload.bundleId == simulator.bundleID)
            try await client.sendConsumptionInformation("1", ConsumptionRequest(customerConsented: true, deliveryStatus: "DELIVERED", sampleContentProvided: false))
            let extended = try await client.extendRenewalDate("1", ExtendRenewalDateRequest(extendByDays: 7, extendReasonCode: 1))
            #expect(extended.success && extended.originalTransactionId == "1" && extended.effectiveDate != nil)
            let mass = try await client.massExtendRenewalDate(MassExtendRenewalDateRequest(productId: "com.example.monthly", extendByDays: 3, extendReasonCode: 3))
            let massStatus = try await client.massExtensionStatus(productId: "com.example.monthly", requestIdentifier: mass.requestIdentifier)
            #expect(massStatus.complete && massStatus.succeededCount == 30 && massStatus.requestIdentifier == mass.requestIdentifier)
            let account = UUID()
            try await client.setAppAccountToken("1", appAccountToken: account)
            #expect(simulator.appAccountTokens(in: .production) == ["1": account.uuidString.lowercased()])

            // Apple's JWT checks passed on every request; the refusals were the simulator's own answers.
            #expect(!simulator.requests.contains { $0.status == 401 })
            #expect(Set(simulator.requests.compactMap(\.endpoint)) == Set(AppStoreEndpoint.allCases))
        }
    }

    /// Apple's refusals keep their code and message; a key Apple does not know gets 401.
    @Test func refusalsKeepApplesErrorAndAreNotRetried() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings())
            let missing = await apiError { _ = try await client.transactionInfo("404") }
            guard case .refused(_, 404, 4040010, let message)? = missing else { Issue.record("\(String(describing: missing))"); return }
            #expect(message == "Transaction id not found." && missing?.exitStatus == 1)

            simulator.inject(.status(400, errorCode: 4000006), endpoint: .transactionInfo)
            #expect(await apiError { _ = try await client.transactionInfo("1") }?.errorCode == 4000006)
            #expect(simulator.requests.count == 2, "a 4xx that is not retryable is asked once")

            let stranger = try makeClient(ClientSettings(keyID: "OTHERKEY99"))
            let refused = await apiError { _ = try await stranger.transactionInfo("1") }
            guard case .refused(_, 401, nil, nil)? = refused else { Issue.record("\(String(describing: refused))"); return }
            try await client.shutdown()
            try await stranger.shutdown()
        }
    }

    /// 5xx and Apple's retryable codes are asked again, a bounded number of times.
    @Test func serverErrorsAreRetriedThenGivenUp() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings(maxRetries: 2))
            simulator.inject(.status(503, errorCode: nil), times: 1)
            simulator.inject(.status(404, errorCode: 4040002), times: 1)
            #expect(try await client.transactionInfo("1").signedTransactionInfo.payload.transactionId == "1")
            #expect(simulator.requests.map(\.status) == [503, 404, 200])

            simulator.inject(.status(500, errorCode: 5000000), times: 10)
            let error = await apiError { _ = try await client.transactionInfo("1") }
            guard case .noAnswer(let host, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(host == "127.0.0.1" && reason.contains("HTTP 500") && error?.exitStatus == 3)
            #expect(simulator.requests.count == 6, "three more attempts: the first and two retries")

            // Apple's retryable codes too: used up, that is no answer.
            simulator.inject(.status(404, errorCode: 4040002), times: 10)
            #expect(await apiError { _ = try await client.transactionInfo("1") }?.exitStatus == 3)
            try await client.shutdown()
        }
    }

    /// No request to an endpoint leaves before Apple's Retry-After instant, not even the ones
    /// that were already waiting for their turn.
    @Test func retryAfterHoldsEveryRequestToThatEndpoint() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production) }) { simulator, makeClient in
            let held = InMemoryRequestBudget()
            let client = try makeClient(ClientSettings(budget: held))
            simulator.inject(.rateLimit(after: 1.2), endpoint: .transactionInfo)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { _ = try await client.transactionInfo("1") }
                // Once the client has read the 429 (a loaded machine may take its time), three more
                // calls to the endpoint queue up.
                let key = "127.0.0.1 \(AppStoreEndpoint.transactionInfo.rawValue)"
                let deadline = Date().addingTimeInterval(10)
                while await held.blocked(key, at: .distantPast) == nil {
                    guard Date() < deadline else { Issue.record("the client never recorded the 429's hold"); break }
                    try await Task.sleep(for: .milliseconds(5))
                }
                for id in ["1", "2", "3"] { group.addTask { _ = try await client.transactionInfo(id) } }
                try await group.waitForAll()
            }
            let requests = simulator.requests
            let limited = try #require(requests.first { $0.status == 429 })
            let resumeAt = limited.instant.addingTimeInterval(1.2)
            let later = requests.filter { $0.instant > limited.instant }
            // Within 50 ms: the wall clock of a virtual machine may be stepped by a few
            // milliseconds; a request that ignored Retry-After would come a second early.
            #expect(later.count == 4 && later.allSatisfy { $0.instant >= resumeAt.addingTimeInterval(-0.05) },
                    "\(later.map { $0.instant.timeIntervalSince(limited.instant) })")
            #expect(requests.filter { $0.status == 200 }.count == 4)

            // A Retry-After beyond the call's wait bound ends the call at once, with no answer; the
            // hold stays, however far ahead, for the calls after it.
            let budget = InMemoryRequestBudget()
            let impatient = try makeClient(ClientSettings(maxWait: 1, budget: budget))
            simulator.inject(.rateLimit(after: 7200), endpoint: .transactionInfo)
            let started = Date()
            let error = await apiError { _ = try await impatient.transactionInfo("1") }
            #expect(error?.exitStatus == 3 && Date().timeIntervalSince(started) < 1, "\(String(describing: error))")
            let holdEnd = try #require(await budget.blocked("127.0.0.1 \(AppStoreEndpoint.transactionInfo.rawValue)", at: started.addingTimeInterval(7100)))
            #expect(abs(holdEnd.timeIntervalSince(started) - 7200) < 5, "held until \(holdEnd)")
            let arrivals = simulator.requests.count
            #expect(await apiError { _ = try await impatient.transactionInfo("2") }?.exitStatus == 3)
            #expect(simulator.requests.count == arrivals, "a request left during Apple's Retry-After")
            // A number past the year 9999 is no instant: backed off, not held.
            #expect(AppStoreServerAPIClient.retryAfter("253402300799999") != nil)
            #expect(AppStoreServerAPIClient.retryAfter("253402300800000") == nil && AppStoreServerAPIClient.retryAfter("9223372036854775807") == nil)
            try await client.shutdown()
            try await impatient.shutdown()
        }
    }

    /// Requests already waiting for their turn in the budget when the 429 comes back wait for
    /// Retry-After too; a Retry-After in the past is a backoff, not a free pass.
    @Test func retryAfterHoldsRequestsAlreadyQueued() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings(budgets: [.transactionInfo: RequestRate(requests: 1, interval: 0.6)]))
            simulator.inject(.rateLimit(after: 2), endpoint: .transactionInfo)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { _ = try await client.transactionInfo("1") } }
                try await group.waitForAll()
            }
            let requests = simulator.requests
            let limited = try #require(requests.first { $0.status == 429 })
            let later = requests.filter { $0.instant > limited.instant }
            #expect(later.count == 3 && later.allSatisfy { $0.instant >= limited.instant.addingTimeInterval(2 - 0.05) },
                    "\(later.map { $0.instant.timeIntervalSince(limited.instant) })")

            simulator.inject(.rateLimit(after: -60), endpoint: .transactionInfo)
            #expect(try await client.transactionInfo("1").signedTransactionInfo.payload.transactionId == "1")
            try await client.shutdown()
        }
    }

    /// By default, Apple's published production rates, a tenth in sandbox: a sandbox test
    /// notification (one per 10 s) asked again at once, within a 2 s wait bound, is no answer,
    /// and nothing leaves early.
    @Test func defaultBudgetsAreApplesFigures() async throws {
        #expect(AppStoreEndpoint.transactionInfo.defaultRate(inSandbox: false) == RequestRate(requests: 50, interval: 1))
        #expect(AppStoreEndpoint.transactionInfo.defaultRate(inSandbox: true) == RequestRate(requests: 5, interval: 1))
        #expect(AppStoreEndpoint.orderLookup.defaultRate(inSandbox: false) == RequestRate(requests: 10, interval: 1))
        #expect(AppStoreEndpoint.extendRenewalDate.defaultRate(inSandbox: true) == RequestRate(requests: 2, interval: 1))
        #expect(AppStoreEndpoint.requestTestNotification.defaultRate(inSandbox: false) == RequestRate(requests: 1, interval: 1))
        let sandboxTest = AppStoreEndpoint.requestTestNotification.defaultRate(inSandbox: true)
        #expect(sandboxTest.requests == 1 && abs(sandboxTest.interval - 10) < 1e-9)

        try await withSimulator { simulator, makeClient in
            let client = try makeClient(ClientSettings(environment: .sandbox, maxWait: 2))
            _ = try await client.requestTestNotification()
            let error = await apiError { _ = try await client.requestTestNotification() }
            #expect(error?.exitStatus == 3, "\(String(describing: error))")
            #expect(simulator.requests.filter { $0.endpoint == .requestTestNotification }.count == 1)
            try await client.shutdown()
        }
    }

    /// A burst is spread so that no window of the budget's interval holds more than its requests.
    @Test func budgetsAreNeverExceeded() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings(budgets: [.transactionInfo: RequestRate(requests: 2, interval: 1.5)]))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 { group.addTask { _ = try await client.transactionInfo("1") } }
                try await group.waitForAll()
            }
            let instants = simulator.requests.map(\.instant).sorted()
            #expect(instants.count == 6)
            // Arrivals are stamped when the simulator gets to them, which a loaded machine delays
            // by a fraction of a second; without the budget the six would arrive at once.
            for (index, instant) in instants.enumerated() where index >= 2 {
                #expect(instant.timeIntervalSince(instants[index - 2]) >= 1.5 - 0.4, "request \(index)")
            }
            #expect(instants.last!.timeIntervalSince(instants.first!) >= 3 - 0.4)
            try await client.shutdown()
        }
    }

    /// A request that never answers ends at its deadline; a call that runs out of time ends at its bound.
    @Test func silenceEndsAtTheDeadline() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings(timeout: 0.5, maxRetries: 0))
            simulator.inject(.hang(seconds: 6))
            let started = Date()
            let error = await apiError { _ = try await client.transactionInfo("1") }
            let elapsed = Date().timeIntervalSince(started)
            guard case .noAnswer(_, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(reason.contains("no answer within 0.5 s") && elapsed >= 0.45 && elapsed < 3, "\(elapsed) \(reason)")

            let bounded = try makeClient(ClientSettings(timeout: 5, maxWait: 0.8, maxRetries: 5))
            simulator.inject(.hang(seconds: 6))
            let boundStart = Date()
            #expect(await apiError { _ = try await bounded.transactionInfo("1") }?.exitStatus == 3)
            #expect(Date().timeIntervalSince(boundStart) < 3)
            try await client.shutdown()
            try await bounded.shutdown()
        }
    }

    /// Answers that cannot be read: over the cap, not JSON, a page token that repeats.
    @Test func unreadableAnswersAreRefused() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings(maxAnswerBytes: 4096))
            simulator.inject(.oversized(bytes: 100_000))
            let oversized = await apiError { _ = try await client.transactionInfo("1") }
            guard case .unreadable(_, let reason)? = oversized else { Issue.record("\(String(describing: oversized))"); return }
            #expect(reason.contains("over the cap of 4096") && oversized?.exitStatus == 2)

            // Without a declared length, the body is read up to the cap and no further.
            simulator.inject(.oversizedStream(bytes: 200_000))
            let streamed = await apiError { _ = try await client.transactionInfo("1") }
            guard case .unreadable(_, let streamReason)? = streamed else { Issue.record("\(String(describing: streamed))"); return }
            #expect(streamReason.contains("the answer is over the cap of 4096 bytes"), "\(streamReason)")

            simulator.inject(.notJSON)
            #expect(await apiError { _ = try await client.transactionInfo("1") }?.exitStatus == 2)

            simulator.inject(.repeatingPage, times: 5)
            let pager = try makeClient(ClientSettings())
            let repeating = await apiError { _ = try await pager.transactionHistory("1") }
            guard case .unreadable(_, let walk)? = repeating else { Issue.record("\(String(describing: repeating))"); return }
            #expect(walk.contains("repeats"))
            #expect(simulator.requests.filter { $0.endpoint == .transactionHistory }.count == 2)
            try await client.shutdown()
            try await pager.shutdown()
        }
    }

    /// One forged token makes the answer unusable, naming its member; a token for the other
    /// environment is not accepted.
    @Test func aForgedOrForeignTokenIsNotVerified() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings())
            simulator.inject(.forgedToken, endpoint: .subscriptionStatuses)
            let forged = await apiError { _ = try await client.subscriptionStatuses("1") }
            guard case .notVerified(_, let member, let failure)? = forged else { Issue.record("\(String(describing: forged))"); return }
            #expect(member == "data[0].lastTransactions[0].signedTransactionInfo" && failure.code.isTrustFailure && forged?.exitStatus == 1)

            simulator.add(transaction: simulator.transaction(id: "77", environment: .sandbox), in: .production)
            let foreign = await apiError { _ = try await client.transactionInfo("77") }
            guard case .notVerified(_, _, let mismatch)? = foreign else { Issue.record("\(String(describing: foreign))"); return }
            #expect(mismatch.code == .environmentMismatch)
            try await client.shutdown()
        }
    }

    /// Answers are read as Apple's response models: a member of another type than Apple's model
    /// says is an unreadable answer naming its path, a call's own token missing is unreadable,
    /// and members no model knows are kept as sent.
    @Test func answersAreReadAsApplesModels() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .production) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings())
            let wrongType: [(member: String, value: StrictJSON.Value, endpoint: AppStoreEndpoint, reason: String)] = [
                ("hasMore", .string("true"), .transactionHistory, "hasMore is a string"),
                ("appAppleId", .number("1.5"), .transactionHistory, "appAppleId is 1.5, not an integer"),
                ("data", .array([.object([("lastTransactions", .array([.object([("status", .string("1"))])]))])]), .subscriptionStatuses,
                 "data[0].lastTransactions[0].status is a string"),
                ("data", .array([.string("x")]), .subscriptionStatuses, "data[0] is a string"),
            ]
            for (member, value, endpoint, reason) in wrongType {
                simulator.inject(.member(member, value), endpoint: endpoint)
                let error = await apiError {
                    if endpoint == .transactionHistory { _ = try await client.transactionHistory("1") } else { _ = try await client.subscriptionStatuses("1") }
                }
                guard case .unreadable(_, let found)? = error else { Issue.record("\(reason): \(String(describing: error))"); continue }
                #expect(found.contains(reason) && error?.exitStatus == 2, "\(found)")
            }
            simulator.inject(.member("signedTransactionInfo", .null), endpoint: .transactionInfo)
            let missing = await apiError { _ = try await client.transactionInfo("1") }
            guard case .unreadable(_, let reason)? = missing else { Issue.record("\(String(describing: missing))"); return }
            #expect(reason == "the answer has no signedTransactionInfo")
            simulator.inject(.member("status", .null), endpoint: .orderLookup)
            let noStatus = await apiError { _ = try await client.lookUpOrder("MNOSUCH") }
            guard case .unreadable(_, let statusReason)? = noStatus else { Issue.record("\(String(describing: noStatus))"); return }
            #expect(statusReason == "the answer has no status")

            simulator.inject(.member("newlyDocumented", .object([("a", .number("1"))])), endpoint: .transactionInfo)
            let kept = try await client.transactionInfo("1")
            #expect(kept.unknownFields.map(\.key) == ["newlyDocumented"] && kept.unknownFields.first?.value["a"] == .number("1"))
            #expect(kept.signedTransactionInfo.jws == kept.answer.body["signedTransactionInfo"].flatMap { if case .string(let text) = $0 { text } else { nil } })
            #expect(kept.signedTransactionInfo.inspection.member == "signedTransactionInfo")
            try await client.shutdown()
        }
    }

    /// `auto`: production first, then sandbox for a transaction production does not know or an
    /// app production has not released; order ids only in production.
    @Test func autoFallsBackToSandbox() async throws {
        try await withSimulator({ addSubscription(to: $0, in: .sandbox, ids: ["8", "9"]) }) { simulator, makeClient in
            let client = try makeClient(ClientSettings(environment: .auto))
            let answer = try await client.transactionInfo("9")
            #expect(answer.answer.environment == .sandbox && answer.signedTransactionInfo.payload.environment == "Sandbox")
            #expect(simulator.requests.map(\.environment) == [.production, .sandbox])
            simulator.unreleased = true
            #expect(try await client.transactionHistory("8").flatMap(\.signedTransactions).count == 2)
            #expect(await apiError { _ = try await client.lookUpOrder("MORDER1") }?.exitStatus == 1)
            #expect(simulator.requests.last?.environment == .production)
            try await client.shutdown()
        }
    }

    /// The bearer JWT is reused until five minutes before it expires, then made anew.
    @Test func theBearerTokenIsReused() throws {
        let key = try ES256SigningKey(pkcs8: Array(try AppleSimulator().privateKeyPEM.utf8))
        let bearer = BearerToken(credentials: AppStoreCredentials(key: key, keyID: "K", issuerID: "I", bundleID: "B"))
        let now = Date()
        let first = bearer.token(at: now)
        #expect(bearer.token(at: now.addingTimeInterval(14 * 60)) == first)
        #expect(bearer.token(at: now.addingTimeInterval(16 * 60)) != first)
    }
}
