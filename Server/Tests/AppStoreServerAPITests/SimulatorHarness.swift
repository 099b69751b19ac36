import AppleSimulator
import AppStoreServerAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptParser
import Testing

/// Runs `body` with a live simulator and a way to make clients of it.
func withSimulator(_ setUp: (AppleSimulator) -> Void = { _ in },
                   _ body: @Sendable (AppleSimulator, @Sendable (ClientSettings) throws -> AppStoreServerAPIClient) async throws -> Void) async throws {
    let simulator = try AppleSimulator()
    setUp(simulator)
    try await simulator.application.test(.live) { client in
        let port = client.port!
        try await body(simulator) { settings in
            let key = try ES256SigningKey(pkcs8: Array(simulator.privateKeyPEM.utf8))
            var configuration = AppStoreServerAPIConfiguration(
                credentials: AppStoreCredentials(key: key, keyID: settings.keyID ?? simulator.keyID, issuerID: simulator.issuerID,
                                                 bundleID: simulator.bundleID),
                environment: settings.environment,
                productionURL: "http://127.0.0.1:\(port)/production", sandboxURL: "http://127.0.0.1:\(port)/sandbox",
                trust: try AppleSimulator.trust())
            configuration.timeout = settings.timeout
            configuration.maxWait = settings.maxWait
            configuration.maxRetries = settings.maxRetries
            configuration.backoff = 0.05
            configuration.maxAnswerBytes = settings.maxAnswerBytes
            for (endpoint, rate) in settings.budgets {
                configuration.productionBudgets[endpoint] = rate
                configuration.sandboxBudgets[endpoint] = rate
            }
            return AppStoreServerAPIClient(configuration: configuration, budget: settings.budget ?? InMemoryRequestBudget())
        }
    }
}

struct ClientSettings: Sendable {
    var environment: AppStoreServerAPIConfiguration.EnvironmentChoice = .production
    var timeout: Double = 5
    var maxWait: Double = 20
    var maxRetries = 3
    var maxAnswerBytes = 8 << 20
    var keyID: String?
    var budgets: [AppStoreEndpoint: RequestRate] = [:]
    /// Where departures are reserved: the client's own when nil.
    var budget: InMemoryRequestBudget?
}

/// The error a call throws, or nil.
func apiError(_ body: () async throws -> Void) async -> AppStoreAPIError? {
    do {
        try await body()
        return nil
    } catch let error as AppStoreAPIError {
        return error
    } catch {
        Issue.record("not an AppStoreAPIError: \(error)")
        return nil
    }
}

/// A subscription of three monthly renewals (1, 2, 3; original 1) in `environment`, its renewal
/// info, an order `MORDER1` holding the first, and four notifications, two of them failed.
func addSubscription(to simulator: AppleSimulator, in environment: ReceiptParser.Environment, ids: [String] = ["1", "2", "3"], revokeLast: Bool = false) {
    let start = AppleSimulator.signedDate
    for (index, id) in ids.enumerated() {
        let purchased = start.addingTimeInterval(Double(index) * 30 * 86400)
        let revoked = revokeLast && index == ids.count - 1 ? purchased.addingTimeInterval(86400) : nil
        simulator.add(transaction: simulator.transaction(id: id, original: ids[0], environment: environment, purchased: purchased,
                                                         expires: purchased.addingTimeInterval(30 * 86400), revoked: revoked),
                      in: environment, orderId: index == 0 ? "MORDER1" : nil)
    }
    simulator.add(renewalInfo: [("originalTransactionId", .string(ids[0])), ("autoRenewProductId", .string("com.example.monthly")),
                                ("productId", .string("com.example.monthly")), ("autoRenewStatus", .number("1")),
                                ("signedDate", .number(String(Int64(AppleSimulator.signedDate.timeIntervalSince1970 * 1000)))),
                                ("environment", .string(environment == .production ? "Production" : "Sandbox"))], in: environment)
    for (index, id) in ids.enumerated() {
        let transaction = simulator.transaction(id: id, original: ids[0], environment: environment)
        simulator.add(notification: simulator.notification(index == 0 ? "SUBSCRIBED" : "DID_RENEW", transaction: transaction, environment: environment),
                      signedDate: AppleSimulator.signedDate.addingTimeInterval(Double(index) * 60), failed: index % 2 == 1, in: environment)
    }
    simulator.add(notification: simulator.notification("DID_CHANGE_RENEWAL_STATUS", transaction: simulator.transaction(id: ids[0], environment: environment),
                                                       environment: environment),
                  signedDate: AppleSimulator.signedDate.addingTimeInterval(600), failed: true, in: environment)
}
