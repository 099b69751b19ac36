import AppStoreServerAPI
import Foundation
import ReceiptLedger

/// The App Store Server API's request budgets kept in the ledger, so that every server on one
/// ledger stays within Apple's limits together: each reservation is one transaction on the
/// budget's row, under its lock.
public struct LedgerRequestBudget: AppStoreRequestBudget {
    public let ledger: Ledger

    public init(ledger: Ledger) {
        self.ledger = ledger
    }

    public func reserve(_ key: String, rate: RequestRate, now: Date, latest: Date) async throws -> Date? {
        try await ledger.updateAPIBudget(key) { budget in
            let departure = RequestBudgetRule.departure(sent: budget.departures, blockedUntil: budget.blockedUntil, rate: rate, now: now)
            guard departure <= latest else { return (budget, nil) }
            return (APIBudget(departures: RequestBudgetRule.recording(departure, in: budget.departures, rate: rate),
                              blockedUntil: budget.blockedUntil), departure)
        }
    }

    public func blocked(_ key: String, at now: Date) async throws -> Date? {
        try await ledger.updateAPIBudget(key) { budget in (budget, budget.blockedUntil.flatMap { $0 > now ? $0 : nil }) }
    }

    public func block(_ key: String, until instant: Date) async throws {
        _ = try await ledger.updateAPIBudget(key) { budget in
            (APIBudget(departures: budget.departures, blockedUntil: max(budget.blockedUntil ?? instant, instant)), nil)
        }
    }
}
