import Foundation
import Testing
import ReceiptLedger

/// The PostgreSQL server the tests use: `RECEIPT_LEDGER_POSTGRES_URL`, an account allowed to create
/// databases (Server/scripts/with-postgres starts a throwaway one and sets it). Without it the
/// PostgreSQL cases are skipped, saying why, except under CI, where they fail: CI must run them.
enum PostgresTestServer {
    static let variable = "RECEIPT_LEDGER_POSTGRES_URL"

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "\(variable) is not set, and CI is: the PostgreSQL ledger tests must run in CI. "
                + "Run them through Server/scripts/with-postgres (scripts/test does)."
        }
    }

    /// The server's URL; skips the current test case, or fails it under CI, when there is none.
    static func url() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment[variable], !url.isEmpty { return url }
        if environment["CI"].map({ !$0.isEmpty }) ?? false { throw Missing() }
        _ = announceSkipping
        try Test.cancel(Comment(rawValue: skipReason))
    }

    private static let skipReason =
        "\(variable) is not set: the PostgreSQL ledger cases are skipped (run them under Server/scripts/with-postgres)"
    /// Said once per run rather than once per skipped case.
    private static let announceSkipping: Void = print(skipReason)

    /// `url` with its database replaced by `database`.
    static func url(_ url: String, database: String) -> String {
        var components = URLComponents(string: url)!
        components.path = "/" + database
        return components.string!
    }
}

/// A new, empty database on the test server, dropped afterwards (with any connection left to it).
func withPostgresDatabase(_ body: (String) async throws -> Void) async throws {
    let server = try PostgresTestServer.url()
    let name = "ledger_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    try await PostgresLedgerStore.execute("CREATE DATABASE \(name)", url: server)
    do {
        try await body(PostgresTestServer.url(server, database: name))
    } catch {
        try? await PostgresLedgerStore.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", url: server)
        throw error
    }
    try await PostgresLedgerStore.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", url: server)
}
