import Foundation

/// What one run of a program gave.
public struct ChildProcessRun: Sendable {
    /// The exit status; nil when the program had to be stopped at its time limit.
    public let status: Int32?
    public let output: String
    public let errors: String
    public let seconds: Double
}

/// Runs `executable` to its end on a thread of its own, not on one of Swift's pool (a blocking
/// wait there would starve the servers the tests run in this process), with only `environment`,
/// its output and errors kept in files (no pipe can fill up); stopped with SIGKILL after
/// `limit` seconds.
public func runChildProcess(_ executable: URL, _ arguments: [String], environment: [String: String],
                            limit: Double = 120) async throws -> ChildProcessRun {
    try await withTemporaryDirectory("child-process") { folder in
        let outputFile = folder.appendingPathComponent("stdout"), errorFile = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let started = Date()
        let status: Int32? = try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    let process = Process()
                    process.executableURL = executable
                    process.arguments = arguments
                    process.environment = environment
                    process.standardOutput = try FileHandle(forWritingTo: outputFile)
                    process.standardError = try FileHandle(forWritingTo: errorFile)
                    try process.run()
                    let stop = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
                    DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: stop)
                    process.waitUntilExit()
                    stop.cancel()
                    let stopped = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
                    continuation.resume(returning: stopped ? nil : process.terminationStatus)
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
        return ChildProcessRun(status: status, output: try String(contentsOf: outputFile, encoding: .utf8),
                               errors: try String(contentsOf: errorFile, encoding: .utf8), seconds: Date().timeIntervalSince(started))
    }
}
