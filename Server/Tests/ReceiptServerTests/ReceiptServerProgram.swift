import Foundation
import Testing

/// The receipt-server program built beside the tests, run for what only a process shows: its
/// `RECEIPT_SERVER_*` variables (a test must not set them in its own process, where other suites
/// parse the command line at the same time) and its exit status.
enum ReceiptServerProgram {
    /// The program run with `arguments` and only `environment` until it exits: its exit status
    /// and standard error.
    static func run(_ arguments: [String] = ["--port", "0"], environment: [String: String]) throws -> (status: Int32, errors: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("receipt-server")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "receipt-server is built beside the tests")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
