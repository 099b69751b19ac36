import Foundation
import Testing
import ReceiptTestSupport

/// receipt-dump as support staff run it: the built binary, its output and exit status.
struct ReceiptDumpTests {
    static let binary = builtExecutable("receipt-dump")

    struct Run {
        let status: Int32
        let output: String
        let errors: String
    }

    func run(_ arguments: String...) throws -> Run { try run(arguments) }

    func run(_ arguments: [String], input: [UInt8]? = nil) throws -> Run {
        let process = Process()
        process.executableURL = try #require(Self.binary, "receipt-dump not found beside the test bundle")
        process.arguments = arguments
        process.currentDirectoryURL = Paths.fixtures
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let standardInput = Pipe()
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(Data(input)) }
        try standardInput.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                   errors: String(decoding: errorData, as: UTF8.self))
    }

    @Test func verifiedSampleExitsZeroWithItsFields() throws {
        let result = try run("--root", "pki/test-root.der", "receipts/sample.receipt")
        #expect(result.status == 0)
        #expect(result.output.contains("Verdict:                      VERIFIED (appStore, SHA-256, certificates valid at 2025-06-01T12:00:00Z)"))
        #expect(result.output.contains("Bundle ID:                    com.example.receiptparser.sample"))
        #expect(result.output.contains("2025-05-20T09:30:00.250Z  com.example.pro.monthly  2000000000000002  2000000000000002  2025-06-20T09:30:00Z  -                     1    trial offer:com.example.pro.winback"))
        #expect(result.output.contains("2025-04-10T07:00:00Z  1    REFUNDED"))
        #expect(result.output.contains("    99 v2 deadbeef"))
        #expect(result.output.contains("[2] CN=ReceiptParser Test Root CA,O=ReceiptParser Tests,C=US"))
    }

    @Test func untrustedReceiptExitsOneAndSaysWhy() throws {
        let result = try run("receipts/sample.receipt")
        #expect(result.status == 1)
        #expect(result.output.contains("NOT VERIFIED (untrustedChain)"))
        #expect(result.output.contains("Bundle ID:                    com.example.receiptparser.sample"))
        let tampered = try run("--root", "pki/test-root.der", "receipts/tampered-payload.receipt")
        #expect(tampered.status == 1)
        #expect(tampered.output.contains("NOT VERIFIED (signatureInvalid)"))
    }

    @Test func unreadableInputExitsTwo() throws {
        let notReceipt = try run("--root", "pki/test-root.der", "receipts/legacy-transaction.b64")
        #expect(notReceipt.status == 2)
        #expect(notReceipt.output.contains("UNREADABLE (legacyTransactionReceipt)"))
        let missing = try run("receipts/no-such-file")
        #expect(missing.status == 2)
        #expect(missing.output.contains("UNREADABLE (unreadableFile)"))
        let badPayload = try run("--root", "pki/test-root.der", "receipts/bad-purchase-date.receipt")
        #expect(badPayload.status == 2)
        #expect(badPayload.output.contains("(invalidDate)"))
        // Verified, but its payload cannot be read: the reason is shown, not the chain's terms.
        let wrongType = try run("--root", "pki/test-root.der", "receipts/wrong-value-type.receipt")
        #expect(wrongType.status == 2)
        #expect(wrongType.output.contains("UNREADABLE (wrongValueType): attribute 2 should be a string"))
    }

    @Test func usageErrorsExitSixtyFour() throws {
        #expect(try run("--root", "pki/test-root.der", "--storekit-testing", "pki/storekit-test.der", "receipts/sample.receipt").status == 64)
        #expect(try run("--at", "yesterday", "receipts/sample.receipt").status == 64)
        #expect(try run("--format", "xml", "receipts/sample.receipt").status == 64)
        #expect(try run().status == 64)
        #expect(try run("--root", "receipts/not-pkcs7.bin", "receipts/sample.receipt").status == 64)
    }

    @Test func jsonCarriesTheTypedModelAndVerdict() throws {
        let result = try run("--format", "json", "--root", "pki/test-root.der", "receipts/sample.receipt")
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "verified")
        #expect(object["status"] as? Int == 0)
        let receipt = try #require(object["receipt"] as? [String: Any])
        #expect(receipt["bundleID"] as? String == "com.example.receiptparser.sample")
        #expect(receipt["creationDate"] as? String == "2025-06-01T12:00:00Z")
        let purchases = try #require(receipt["inAppPurchases"] as? [[String: Any]])
        #expect(purchases.count == 3)
        #expect(purchases[1]["webOrderLineItemID"] as? Int == 5_000_000_000_123_456)
        let attributes = try #require(receipt["attributes"] as? [[String: Any]])
        #expect(attributes.contains { $0["type"] as? Int == 99 && $0["value"] as? String == "deadbeef" })
        let verification = try #require(object["verification"] as? [String: Any])
        #expect((verification["chain"] as? [Any])?.count == 3)
    }

    @Test func severalFilesExitWithTheWorstStatus() throws {
        let result = try run("--format", "summary", "--root", "pki/test-root.der",
                             "receipts/sample.receipt", "receipts/tampered-signature.receipt", "receipts/not-pkcs7.bin")
        #expect(result.status == 2)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first == "receipts/sample.receipt\tverified\tcom.example.receiptparser.sample\tProductionSandbox\t3 in-app")
        #expect(lines.dropFirst().first?.contains("not verified (signatureInvalid)") == true)
        #expect(lines.last?.contains("unreadable (notBase64)") == true)
        #expect(try run("--format", "summary", "--root", "pki/test-root.der",
                        "receipts/sample.receipt", "receipts/tampered-signature.receipt").status == 1)
    }

    @Test func storeKitModeAndOtherOptions() throws {
        #expect(try run("--storekit-testing", "pki/storekit-test.der", "receipts/storekit.receipt").status == 0)
        #expect(try run("--storekit-testing", "pki/storekit-test.der", "receipts/sample.receipt").status == 1)
        let unchecked = try run("--no-verify", "receipts/sample.receipt")
        #expect(unchecked.status == 0)
        #expect(unchecked.output.contains("not checked (--no-verify)"))
        #expect(try run("--format", "summary", "--no-verify", "receipts/sample.receipt").output.hasPrefix("receipts/sample.receipt\tnot checked\t"))
        #expect(try run("--root", "pki/test-root.der", "--require-sha256", "receipts/sha1.receipt").status == 1)
        #expect(try run("--root", "pki/test-root.der", "--at", "2025-03-01T00:00:00Z", "receipts/no-creation-date.receipt").status == 0)
        #expect(try run("--root", "pki/test-root.der", "--at", "2026-06-01T00:00:00Z", "receipts/sample.receipt").status == 1)
    }

    @Test func requestBodiesWithDuplicateKeysAreUnreadable() throws {
        let base64 = try sampleBase64()
        let duplicate = "{\"receipt-data\":\"\(base64)\",\"receipt-data\":\"MIIB\"}"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("duplicate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("duplicate.json")
        try Data(duplicate.utf8).write(to: file)
        let lines = folder.appendingPathComponent("bodies.jsonl")
        try Data("{\"receipt-data\":\"\(base64)\"}\n\(duplicate)\n".utf8).write(to: lines)

        let fromFile = try run("--root", "pki/test-root.der", file.path)
        #expect(fromFile.status == 2)
        #expect(fromFile.output.contains("UNREADABLE (duplicateKey)"))
        #expect(fromFile.output.contains("\"receipt-data\""))
        let fromInput = try run(["--root", "pki/test-root.der", "-"], input: Array(duplicate.utf8))
        #expect(fromInput.status == 2)
        #expect(fromInput.output.contains("UNREADABLE (duplicateKey)"))
        let batch = try run("--format", "summary", "--root", "pki/test-root.der", "--jsonl", lines.path)
        #expect(batch.status == 2)
        let outcomes = batch.output.split(separator: "\n")
        #expect(outcomes.count == 2)
        #expect(outcomes.first?.contains("\tverified\t") == true)
        #expect(outcomes.last?.contains("duplicateKey") == true)
        // The same body once, and a malformed one: read as before / unreadable.
        let single = folder.appendingPathComponent("single.json")
        try Data("{\"receipt-data\":\"\(base64)\"}".utf8).write(to: single)
        #expect(try run("--root", "pki/test-root.der", single.path).status == 0)
        try Data("{\"receipt-data\":\"\(base64)\"".utf8).write(to: single)
        #expect(try run("--root", "pki/test-root.der", single.path).output.contains("UNREADABLE (invalidJSON)"))

        // --credited: a malformed JSON array is a usage error; a valid one is read strictly.
        let credited = folder.appendingPathComponent("credited.json")
        for malformed in ["[\"2000000000000002\",]", "[{\"a\": 1, \"a\": 2}]", "[\"2000000000000002\"] x", "[" + String(repeating: "[", count: 40)] {
            try Data(malformed.utf8).write(to: credited)
            let result = try run("--root", "pki/test-root.der", "--credited", credited.path, "receipts/sample.receipt")
            #expect(result.status == 64, "\(malformed)")
        }
        try Data("[\"2000000000000002\", 2000000000000003, null, {\"x\": 1}]".utf8).write(to: credited)
        let reconciled = try run("--root", "pki/test-root.der", "--credited", credited.path, "receipts/sample.receipt")
        #expect(reconciled.status == 0)
        #expect(reconciled.output.contains("Not yet credited (1): 2000000000000001"))
    }
}
