import ArgumentParser
import Foundation
import ReceiptLedger
import Testing
@testable import ReceiptServer
@testable import receipt_server

/// `--ledger` and `--ledger-token`: a server with a ledger never starts without a sound token.
@Suite(.serialized)
struct LedgerOptionTests {
    static let token = LedgerFixtures.token

    /// The exit code and message the command line gives for `arguments`, or nil when they parse.
    static func refusal(_ arguments: [String]) -> (Int32, String)? {
        do {
            _ = try ReceiptServerCommand.parse(["--port", "0"] + arguments)
            return nil
        } catch {
            return (ReceiptServerCommand.exitCode(for: error).rawValue, ReceiptServerCommand.message(for: error))
        }
    }

    @Test func soundOptionsParse() throws {
        let sqlite = try ReceiptServerCommand.parse(["--ledger", "sqlite:/tmp/ledger.sqlite", "--ledger-token", Self.token, "--environment", "sandbox"])
        let options = try #require(try sqlite.ledgerOptions())
        #expect(options.location == .sqlite(path: "/tmp/ledger.sqlite"))
        #expect(options.token.admits(authorization: "Bearer \(Self.token)"))
        #expect(try LedgerLocation("sqlite:ledger.sqlite") == .sqlite(path: "ledger.sqlite"))
        #expect(try LedgerLocation("postgres://receipts@db.internal:5432/ledger") == .postgres(url: "postgres://receipts@db.internal:5432/ledger"))
        #expect(try LedgerLocation("postgresql://receipts:pw@db.internal/ledger?sslmode=require")
            == .postgres(url: "postgresql://receipts:pw@db.internal/ledger?sslmode=require"))
        // Without --ledger: no ledger, whatever else is set.
        #expect(try ReceiptServerCommand.parse([]).ledgerOptions() == nil)
    }

    @Test func unsoundOptionsAreUsageErrors() {
        let cases: [([String], String)] = [
            (["--ledger", "sqlite:/tmp/ledger.sqlite"], "--ledger needs --ledger-token"),
            (["--ledger", "sqlite:/tmp/ledger.sqlite", "--ledger-token", Self.token], "--ledger needs --environment production or sandbox"),
            (["--ledger", "sqlite:/tmp/ledger.sqlite", "--ledger-token", "short-token"], "at least 16 characters"),
            (["--ledger", "sqlite:/tmp/ledger.sqlite", "--ledger-token", "sixteen chars ok!"], "whitespace or control"),
            (["--ledger", "sqlite:/tmp/ledger.sqlite", "--ledger-token", "sixteen-chars-ok\u{7}"], "whitespace or control"),
            (["--ledger", "/tmp/ledger.sqlite", "--ledger-token", Self.token], "sqlite:PATH or postgres://"),
            (["--ledger", "sqlite:", "--ledger-token", Self.token], "needs a file path"),
            (["--ledger", "mysql://u@h:1/d", "--ledger-token", Self.token], "sqlite:PATH or postgres://"),
            (["--ledger", "postgres://db.internal:5432/ledger", "--ledger-token", Self.token], "(no user)"),
            (["--ledger", "postgres://u@db.internal:5432/", "--ledger-token", Self.token], "(no database"),
            (["--ledger", "postgres://u@db.internal/ledger?sslmode=maybe", "--ledger-token", Self.token], "sslmode must be"),
            (["--ledger", "postgres://u:secret@db.internal/ledger?ssl=1", "--ledger-token", Self.token], "u:***@db.internal"),
        ]
        for (arguments, message) in cases {
            let refusal = Self.refusal(arguments)
            #expect(refusal?.0 == 64, "\(arguments)")
            #expect(refusal?.1.contains(message) == true, "\(arguments): \(refusal?.1 ?? "parsed")")
        }
        // A malformed URL is shown to the admin without its password.
        #expect(Self.refusal(["--ledger", "postgres://u:secret@db.internal/ledger?ssl=1", "--ledger-token", Self.token])?
            .1.contains("secret") == false)
    }

    @Test func theTokenMayComeFromTheEnvironment() throws {
        setenv("RECEIPT_SERVER_LEDGER_TOKEN", Self.token, 1)
        defer { unsetenv("RECEIPT_SERVER_LEDGER_TOKEN") }
        let command = try ReceiptServerCommand.parse(["--ledger", "sqlite:/tmp/ledger.sqlite", "--environment", "production"])
        #expect(try command.ledgerOptions()?.token.admits(authorization: "Bearer \(Self.token)") == true)
        setenv("RECEIPT_SERVER_LEDGER_TOKEN", "short", 1)
        #expect(Self.refusal(["--ledger", "sqlite:/tmp/ledger.sqlite", "--environment", "production"])?.0 == 64)
    }

    @Test func aStoreThatCannotBeOpenedStopsTheStart() async throws {
        let missing = "sqlite:/nonexistent-\(UUID().uuidString)/ledger.sqlite"
        let command = try ReceiptServerCommand.parse(["--ledger", missing, "--ledger-token", Self.token, "--environment", "sandbox"])
        await #expect { _ = try await command.openLedger() } throws: { error in
            "\(error)".hasPrefix("cannot open the ledger \(missing): the ledger's database is unavailable")
        }
        // Nothing listens on port 1: the PostgreSQL store is opened, and refused at once; the
        // message names the URL without its password.
        let postgres = try ReceiptServerCommand.parse(["--ledger", "postgres://u:hunter2@127.0.0.1:1/ledger", "--ledger-token", Self.token,
                                                       "--environment", "production"])
        await #expect { _ = try await postgres.openLedger() } throws: { error in
            "\(error)".hasPrefix("cannot open the ledger postgres://u:***@127.0.0.1:1/ledger: the ledger's database is unavailable: "
                + "PostgreSQL (u@127.0.0.1:1/ledger): cannot connect") && !"\(error)".contains("hunter2")
        }
        // A sound path opens and migrates.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-option-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sound = try ReceiptServerCommand.parse(["--ledger", "sqlite:\(directory.path)/ledger.sqlite", "--ledger-token", Self.token,
                                                    "--environment", "sandbox"])
        let ledger = try #require(try await sound.openLedger())
        #expect(try await ledger.ledger.uncredited(olderThan: 0).isEmpty)
    }
}
