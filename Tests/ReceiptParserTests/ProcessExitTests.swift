import Foundation
import Testing
import ReceiptTestSupport

/// A process that exits while another of its threads verifies exits cleanly. OpenSSL would
/// otherwise free its locks from an atexit handler under the verifying thread: before the shim
/// asked it not to, about one run in eight of verify-while-exiting died of SIGSEGV, so a hundred
/// clean runs in a row do not happen by luck.
struct ProcessExitTests {
    @Test func exitingWhileAnotherThreadVerifiesIsAnOrdinaryExit() throws {
        let program = try #require(builtExecutable("verify-while-exiting"), "verify-while-exiting not found beside the test bundle")
        for run in 1...100 {
            let process = Process()
            process.executableURL = program
            process.currentDirectoryURL = Paths.fixtures
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationReason == .exit && process.terminationStatus == 0,
                         "run \(run): \(process.terminationReason == .exit ? "exit status" : "signal") \(process.terminationStatus)")
        }
    }
}
