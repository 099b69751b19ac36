import Foundation
import Testing

/// The receipt-server program built beside the tests, run for what only a process shows: its
/// `RECEIPT_SERVER_*` variables (a test must not set them in its own process, where other suites
/// parse the command line at the same time) and its exit status.
enum ReceiptServerProgram {
    /// The program run with `arguments` and only `environment` until it exits, on a thread of its
    /// own (not one of the two of Swift's pool), stopped after `limit` seconds: its exit status
    /// (nil when it had to be stopped) and standard error.
    static func run(_ arguments: [String] = ["--port", "0"], environment: [String: String],
                    limit: Double = 20) async throws -> (status: Int32?, errors: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("receipt-server")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "receipt-server is built beside the tests")
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    let process = Process()
                    process.executableURL = binary
                    process.arguments = arguments
                    process.environment = environment
                    let errors = Pipe()
                    process.standardError = errors
                    process.standardOutput = FileHandle.nullDevice
                    try process.run()
                    let stop = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
                    DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: stop)
                    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    process.waitUntilExit()
                    stop.cancel()
                    let stopped = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
                    continuation.resume(returning: (stopped ? nil : process.terminationStatus, text))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }
}
