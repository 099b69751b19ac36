import Foundation
import Testing
import ReceiptTestSupport

/// Every case of TestReceipts/cases.json that receipt-dump can run (receipts, tokens and bodies;
/// not a kind asked of the library) through receipt-dump, as support staff run it: the exit
/// status and the error code the manifest records (or one of the other defects a multi-defect
/// token also has).
struct FixtureCaseTests {
    @Test(arguments: FixtureManifest.cases.filter { $0.options.asKind == nil })
    func receiptDumpGivesTheRecordedOutcome(_ item: FixtureCase) throws {
        let run = try ReceiptDumpTests().run(["--format", "summary"] + item.options.arguments + [item.file])
        #expect(run.status == item.exitStatus, "\(run.output)")
        if item.errors.isEmpty {
            #expect(run.output.contains("\tverified\t"), "\(run.output)")
        } else {
            #expect(item.errors.contains { run.output.contains("(\($0))") }, "expected \(item.errors): \(run.output)")
        }
    }
}
