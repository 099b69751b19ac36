import Foundation
import ServerTestSupport
import Testing

/// The receipt-server program built beside the tests, run for what only a process shows: its
/// `RECEIPT_SERVER_*` variables (a test must not set them in its own process, where other suites
/// parse the command line at the same time) and its exit status.
enum ReceiptServerProgram {
    /// The program run with `arguments` and only `environment` until it exits, stopped after
    /// `limit` seconds: its exit status (nil when it had to be stopped) and standard error.
    static func run(_ arguments: [String] = ["--port", "0"], environment: [String: String],
                    limit: Double = 20) async throws -> (status: Int32?, errors: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("receipt-server")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "receipt-server is built beside the tests")
        let run = try await runChildProcess(binary, arguments, environment: environment, limit: limit)
        return (run.status, run.errors)
    }
}
