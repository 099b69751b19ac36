import Foundation

/// A new folder under the system's temporary directory, named `prefix`-UUID, removed when `body`
/// is done.
public func withTemporaryDirectory<Result>(_ prefix: String = "receipt-server-tests", _ body: (URL) async throws -> Result) async throws -> Result {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}
