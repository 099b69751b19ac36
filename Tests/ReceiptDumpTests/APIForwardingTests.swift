import Foundation
import Testing

/// `receipt-dump api …` runs receipt-dump-api with the rest of the command line, and says how to
/// build it when it is missing (usage, 64).
struct APIForwardingTests {
    func run(path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try #require(ReceiptDumpTests.binary, "receipt-dump not found beside the test bundle")
        process.arguments = arguments
        process.environment = ["PATH": path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func apiRunsTheClientWithTheRestOfTheCommandLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-forward-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("receipt-dump-api")
        try Data("#!/bin/sh\necho \"client: $*\"\nexit 7\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)

        let forwarded = try run(path: folder.path + ":/usr/bin:/bin", ["api", "order", "MXYZ", "--format", "json"])
        #expect(forwarded.status == 7 && forwarded.output == "client: order MXYZ --format json\n", "\(forwarded.output)")

        let missing = try run(path: "/usr/bin:/bin", ["api", "order", "MXYZ"])
        #expect(missing.status == 64 && missing.output.contains("swift build -c release --package-path Server --product receipt-dump-api"))
    }
}
