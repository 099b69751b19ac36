// What every fuzz executable shares: the harness, loaded once, and the hand-over to libFuzzer.
import Foundation
import CFuzzDriver
@_exported import FuzzHarness

/// The harness with TestReceipts/pki/test-root.der, found from this file's path.
public let harness: FuzzHarness = {
    let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("TestReceipts/pki/test-root.der")
    guard let bytes = try? Data(contentsOf: root), let harness = try? FuzzHarness(testRoot: [UInt8](bytes)) else {
        fatalError("cannot load the test root at \(root.path)")
    }
    return harness
}()

/// Runs libFuzzer over `callback` with the process's arguments and exits with its status.
public func runLibFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    _ = harness  // load the root before the first input, outside any timed run
    exit(rf_run_driver(CommandLine.argc, CommandLine.unsafeArgv, callback))
}

/// One input as an array (libFuzzer may pass a null pointer for the empty input).
public func input(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}
