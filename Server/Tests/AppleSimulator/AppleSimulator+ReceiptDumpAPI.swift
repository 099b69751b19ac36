import Foundation

extension AppleSimulator {
    /// What one run of the built receipt-dump-api gave.
    public struct ReceiptDumpAPIRun: Sendable {
        public let status: Int32
        public let output: String
        public let errors: String
        public let seconds: Double
    }

    /// `swift test` builds every product into the folder that holds the test bundle.
    static let receiptDumpAPI: URL? = {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [folder, folder.deletingLastPathComponent()].map { $0.appendingPathComponent("receipt-dump-api") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs the built receipt-dump-api against this simulator (on `port`), trusting the test PKI,
    /// on a thread of its own so that the simulator in this process keeps answering. With
    /// `credentials` the key is given by flags; `environment` adds variables (`KEYFILE` stands
    /// for the key file's path), and no `APP_STORE_*` variable of the test's own is passed on.
    public func runReceiptDumpAPI(_ arguments: [String], port: Int, credentials: Bool = true,
                                  environment: [String: String] = [:]) async throws -> ReceiptDumpAPIRun {
        guard let binary = Self.receiptDumpAPI else { throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "receipt-dump-api not found beside the test bundle"]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = folder.appendingPathComponent("AuthKey.p8")
        try Data(privateKeyPEM.utf8).write(to: keyFile)
        var all = arguments + ["--root", Signer.pki.appendingPathComponent("jws-root.der").path,
                               "--api-url", "http://127.0.0.1:\(port)/production", "--sandbox-api-url", "http://127.0.0.1:\(port)/sandbox"]
        if credentials {
            all += ["--key-file", keyFile.path, "--key-id", keyID, "--issuer-id", issuerID, "--bundle-id", bundleID]
        }
        var processEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("APP_STORE_") }
        processEnvironment.merge(environment.mapValues { $0 == "KEYFILE" ? keyFile.path : $0 }) { $1 }
        let arguments = all, variables = processEnvironment
        let outputFile = folder.appendingPathComponent("stdout"), errorFile = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let started = Date()
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    let process = Process()
                    process.executableURL = binary
                    process.arguments = arguments
                    process.environment = variables
                    process.standardOutput = try FileHandle(forWritingTo: outputFile)
                    process.standardError = try FileHandle(forWritingTo: errorFile)
                    try process.run()
                    process.waitUntilExit()
                    continuation.resume(returning: process.terminationStatus)
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
        return ReceiptDumpAPIRun(status: status, output: try String(contentsOf: outputFile, encoding: .utf8),
                                 errors: try String(contentsOf: errorFile, encoding: .utf8), seconds: Date().timeIntervalSince(started))
    }
}
