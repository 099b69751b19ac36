import AppleSimulator
import AppStoreServerAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptParser
import ReceiptServer
import ServerTestSupport
import Testing

/// Two servers' clients on one ledger share Apple's budget (LedgerRequestBudget): at Apple, their
/// requests together stay within it.
@Suite(.timeLimit(.minutes(2)))
struct SharedBudgetTests {
    @Test func twoServersShareOneBudget() async throws {
        let simulator = try AppleSimulator()
        simulator.add(transaction: simulator.transaction(id: "51", environment: .production), in: .production)
        try await simulator.application.test(.live) { apple in
            let port = try #require(apple.port)
            try await withTemporaryDirectory("shared-budget") { directory in
                let path = directory.appendingPathComponent("ledger.sqlite").path
                var clients: [AppStoreServerAPIClient] = []
                for _ in 0..<2 {
                    let ledger = Ledger(store: try SQLiteLedgerStore(path: path))
                    let key = try ES256SigningKey(pkcs8: Array(simulator.privateKeyPEM.utf8))
                    var configuration = AppStoreServerAPIConfiguration(
                        credentials: AppStoreCredentials(key: key, keyID: simulator.keyID, issuerID: simulator.issuerID, bundleID: simulator.bundleID),
                        environment: .production, productionURL: "http://127.0.0.1:\(port)/production",
                        sandboxURL: "http://127.0.0.1:\(port)/sandbox", trust: try AppleSimulator.trust())
                    configuration.productionBudgets[.transactionInfo] = RequestRate(requests: 1, interval: 1)
                    clients.append(AppStoreServerAPIClient(configuration: configuration, budget: LedgerRequestBudget(ledger: ledger)))
                }
                // Each client's connection opened first, on another endpoint, so that no arrival
                // below carries a connection's set-up.
                for client in clients { _ = try? await client.subscriptionStatuses("51") }
                let pair = clients
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<6 { group.addTask { _ = try await pair[index % 2].transactionInfo("51") } }
                    try await group.waitForAll()
                }
                for client in clients { try await client.shutdown() }
            }
            // Budgets of their own would let two requests leave together; the shared one spaces
            // all six a second apart (arrivals may bunch by a fraction of a second on the way).
            let instants = simulator.requests.filter { $0.endpoint == .transactionInfo }.map(\.instant).sorted()
            #expect(instants.count == 6)
            for (index, instant) in instants.enumerated() where index > 0 {
                #expect(instant.timeIntervalSince(instants[index - 1]) >= 1 - 0.3, "request \(index)")
            }
            #expect(instants.last!.timeIntervalSince(instants.first!) >= 5 - 0.3)
        }
    }
}
