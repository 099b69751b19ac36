import Foundation
import ServerTestSupport

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
        return try await withTemporaryDirectory("api") { folder in
            let keyFile = folder.appendingPathComponent("AuthKey.p8")
            try Data(privateKeyPEM.utf8).write(to: keyFile)
            var all = arguments + ["--root", Signer.pki.appendingPathComponent("jws-root.der").path,
                                   "--api-url", "http://127.0.0.1:\(port)/production", "--sandbox-api-url", "http://127.0.0.1:\(port)/sandbox"]
            if credentials {
                all += ["--key-file", keyFile.path, "--key-id", keyID, "--issuer-id", issuerID, "--bundle-id", bundleID]
            }
            var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("APP_STORE_") }
            variables.merge(environment.mapValues { $0 == "KEYFILE" ? keyFile.path : $0 }) { $1 }
            let run = try await runChildProcess(binary, all, environment: variables)
            // A run stopped at the time limit reads as killed (137), as a shell would say.
            return ReceiptDumpAPIRun(status: run.status ?? 128 + SIGKILL, output: run.output, errors: run.errors, seconds: run.seconds)
        }
    }
}
