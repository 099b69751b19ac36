import Foundation
import Testing
import ReceiptTestSupport

/// receipt-dump's support-staff features: input forms, formats, filters, checks, reconciliation
/// and batches, on generated and real receipts.
struct SupportToolTests {
    let tool = ReceiptDumpTests()

    func run(_ arguments: String..., input: [UInt8]? = nil) throws -> ReceiptDumpTests.Run {
        try tool.run(arguments, input: input)
    }

    func json(_ result: ReceiptDumpTests.Run) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    }

    @Test func textOutputMatchesTheGoldenFile() throws {
        let result = try run("--root", "pki/test-root.der", "--certs", "--at", "2025-06-01T00:00:00Z",
                             "--bundle-id", "com.example.receiptparser.sample",
                             "--device-guid", "6F1C2D3E-4A5B-4C6D-8E7F-9A0B1C2D3E4F",
                             "--credited", "credited.txt", "receipts/sample.receipt")
        #expect(result.status == 0)
        let golden = Paths.repository.appendingPathComponent("Tests/ReceiptDumpTests/Golden/sample.txt")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] != nil {
            try Data(result.output.utf8).write(to: golden)
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(result.output == expected, "set UPDATE_GOLDEN=1 to rewrite after an intended change")
    }

    @Test func standardInputAndRequestBodies() throws {
        let base64 = try fixture("sample.b64")
        let fromStdin = try run("--format", "summary", "--root", "pki/test-root.der", "-", input: base64)
        #expect(fromStdin.status == 0)
        #expect(fromStdin.output == "-\tverified\tcom.example.receiptparser.sample\tProductionSandbox\t3 in-app\n")
        #expect(try run("--format", "summary", "--root", "pki/test-root.der", "receipts/sample-request.json").status == 0)
        #expect(try run("--format", "summary", "--root", "pki/test-root.der", "-", input: Array("hello".utf8)).status == 2)
    }

    @Test func directoriesAreWalkedWholeInTheByteOrderOfTheirPaths() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let sample = try Data(contentsOf: Paths.fixtures.appendingPathComponent("receipts/sample.receipt"))
        for path in ["b", "a/x", "a/.hidden", "a-2", "A", "a/sub/y", ".skipped/z", "\u{E9}", "a/sub/.z"] {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try sample.write(to: file)
        }
        // A link back up the tree is followed once, not round and round.
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("a/sub/up").path, withDestinationPath: "../..")
        let result = try run("--format", "summary", "--root", "pki/test-root.der", root.path)
        #expect(result.status == 0)
        let files = result.output.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        // Hidden files and directories skipped; "a-2" before "a/…" because "-" < "/"; "A" before
        // "a" and "é" (C3 A9) last, as `LC_ALL=C sort` orders the paths.
        #expect(files == ["A", "a-2", "a/sub/y", "a/x", "b", "\u{E9}"].map { root.path + "/" + $0 })
        #expect(result.errors.contains("Totals: 6 receipts, 6 verified"))
    }

    /// A listed file is read by its own path bytes: `e` + FF (not UTF-8) and `e` + EF BF BD
    /// (U+FFFD) are shown alike but each reports its own receipt, not the other's.
    @Test func aFileNameThatIsNotUTF8IsReadByItsOwnBytes() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("bytes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        func write(_ name: [UInt8], _ fixtureName: String) throws {
            let contents = try fixture(fixtureName)
            let path = Array(root.path.utf8) + [UInt8(ascii: "/")] + name + [0]
            let descriptor = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) } }
            try #require(descriptor >= 0)
            _ = contents.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
        try write([0x65, 0xFF], "sample.receipt")
        try write([0x65, 0xEF, 0xBF, 0xBD], "tampered-signature.receipt")
        let result = try run("--format", "summary", "--root", "pki/test-root.der", root.path)
        let verdicts = result.output.split(separator: "\n").map { $0.split(separator: "\t")[1] }
        // Byte order: EF BF BD before FF.
        #expect(verdicts == ["not verified (signatureInvalid)", "verified"])
    }

    @Test func directoriesAndJSONLinesAreBatches() throws {
        let directory = try run("--format", "summary", "--root", "pki/test-root.der", "receipts")
        #expect(directory.status == 2)  // the folder holds hostile fixtures too
        let lines = directory.output.split(separator: "\n")
        let files = try FileManager.default.contentsOfDirectory(atPath: Paths.fixtures.appendingPathComponent("receipts").path)
            .filter { !$0.hasPrefix(".") }
        #expect(lines.count == files.count)  // every file, SHA256SUMS included
        #expect(lines.contains("receipts/sample.receipt\tverified\tcom.example.receiptparser.sample\tProductionSandbox\t3 in-app"))
        #expect(lines.contains { $0.hasPrefix("receipts/wrong-root.receipt\tnot verified (untrustedChain)") })
        #expect(lines.contains { $0.hasPrefix("receipts/SHA256SUMS\tunreadable (notBase64)") })
        #expect(directory.errors.contains("Totals: \(files.count) receipts, "))

        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-\(UUID().uuidString).jsonl")
        let oneLine = String(decoding: try fixture("sample-oneline.b64"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let request = String(decoding: try fixture("sample-request.json"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try Data("\(oneLine)\n\n%%% not base64\n\(request)\n".utf8).write(to: temporary)
        defer { try? FileManager.default.removeItem(at: temporary) }
        let batch = try run("--format", "summary", "--root", "pki/test-root.der", "--jsonl", temporary.path)
        #expect(batch.status == 2)
        let results = batch.output.split(separator: "\n").map { $0.split(separator: "\t").prefix(2).joined(separator: " ") }
        #expect(results == ["\(temporary.path):1 verified", "\(temporary.path):3 unreadable (notBase64)", "\(temporary.path):4 verified"])
        #expect(batch.errors.contains("Totals: 3 receipts, 2 verified, 0 not verified, 1 unreadable"))
    }

    @Test func verifyReceiptFormatAndEnvironment() throws {
        let result = try run("--format", "verifyreceipt", "--root", "pki/test-root.der", "receipts/sample.receipt")
        #expect(result.status == 0)
        let object = try #require(try json(result) as? [String: Any])
        #expect(object["status"] as? Int == 0)
        #expect(object["environment"] as? String == "Sandbox")
        let receipt = try #require(object["receipt"] as? [String: Any])
        #expect((receipt["in_app"] as? [Any])?.count == 3)
        let wrongEnvironment = try run("--format", "verifyreceipt", "--environment", "production", "--root", "pki/test-root.der", "receipts/sample.receipt")
        #expect((try json(wrongEnvironment) as? [String: Any])?["status"] as? Int == 21007)
        let forged = try run("--format", "verifyreceipt", "--root", "pki/test-root.der", "receipts/tampered-payload.receipt")
        #expect(forged.status == 1)
        #expect((try json(forged) as? [String: Any])?["status"] as? Int == 21003)
        let unreadable = try run("--format", "verifyreceipt", "receipts/not-pkcs7.bin")
        #expect((try json(unreadable) as? [String: Any])?["status"] as? Int == 21002)
        #expect(try run("--format", "verifyreceipt", "--no-verify", "receipts/sample.receipt").status == 64)
        // --environment is a check with every format: the sample is a sandbox receipt.
        let sandbox = try run("--format", "summary", "--root", "pki/test-root.der", "--environment", "sandbox", "receipts/sample.receipt")
        #expect(sandbox.status == 0)
        let production = try run("--root", "pki/test-root.der", "--environment", "production", "receipts/sample.receipt")
        #expect(production.status == 1)
        #expect(production.output.contains("Check environment:"))
    }

    @Test func severalReceiptsInJSONFormatsMakeOneArray() throws {
        let json = try run("--format", "json", "--root", "pki/test-root.der", "receipts/sample.receipt", "receipts/not-pkcs7.bin")
        let objects = try #require(try self.json(json) as? [[String: Any]])
        #expect(objects.map { $0["verdict"] as? String } == ["verified", "unreadable"])
        #expect(objects.map { $0["file"] as? String } == ["receipts/sample.receipt", "receipts/not-pkcs7.bin"])
        let apple = try run("--format", "verifyreceipt", "--root", "pki/test-root.der", "receipts/sample.receipt", "receipts/wrong-root.receipt")
        let responses = try #require(try self.json(apple) as? [[String: Any]])
        #expect(responses.map { $0["status"] as? Int } == [0, 21003])
    }

    @Test func asn1FormatShowsTheRawTree() throws {
        let result = try run("--format", "asn1", "--root", "pki/test-root.der", "receipts/sample.receipt")
        #expect(result.status == 0)
        #expect(result.output.contains("SET OF ReceiptAttribute (16)"))
        #expect(result.output.contains("  type 2 (bundleID) version 1 UTF8String \"com.example.receiptparser.sample\" [0c20636f6d2e6578616d706c652e726563656970747061727365722e73616d706c65]"))
        #expect(result.output.contains("  type 17 (inAppPurchase) version 1 SET OF ReceiptAttribute (14)"))
        #expect(result.output.contains("      type 1711 (webOrderLineItemID) version 1 INTEGER 5000000000123456 [020711c37937e26240]"))
        #expect(result.output.contains("      type 1799 version 1 UTF8String \"kept\" [0c046b657074]"))
        #expect(result.output.contains("  type 99 version 2 OCTETS [deadbeef]"))
    }

    @Test func filtersNarrowThePurchases() throws {
        func purchases(_ arguments: String...) throws -> [String] {
            let result = try tool.run(["--format", "json", "--root", "pki/test-root.der"] + arguments + ["receipts/sample.receipt"])
            let object = try #require(try json(result) as? [String: Any])
            let receipt = try #require(object["receipt"] as? [String: Any])
            return (receipt["inAppPurchases"] as? [[String: Any]] ?? []).compactMap { $0["productID"] as? String }
        }
        #expect(try purchases("--product", "com.example.unlock") == ["com.example.unlock"])
        #expect(try purchases("--transaction", "2000000000000001") == ["com.example.coins.100"])
        #expect(try purchases("--active-at", "2025-06-01T00:00:00Z") == ["com.example.pro.monthly"])
        #expect(try purchases("--active-at", "2026-01-01T00:00:00Z") == [])
        #expect(try purchases("--product", "com.example.none") == [])
    }

    @Test func checksPrintAVerdictAndFailWithOne() throws {
        let good = try run("--root", "pki/test-root.der", "--bundle-id", "com.example.receiptparser.sample",
                           "--app-version", "1.4.2", "--device-guid", "6f1c2d3e4a5b4c6d8e7f9a0b1c2d3e4f", "receipts/sample.receipt")
        #expect(good.status == 0)
        #expect(good.output.contains("Check bundle-id:              PASS: expected com.example.receiptparser.sample, the data has \"com.example.receiptparser.sample\"\n"))
        #expect(good.output.contains("Check app-version:            PASS"))
        #expect(good.output.contains("Check device-guid:            PASS"))
        for arguments in [["--bundle-id", "com.example.other"], ["--app-version", "2.0"],
                          ["--device-guid", "00000000-0000-0000-0000-000000000000"]] {
            let bad = try tool.run(["--root", "pki/test-root.der"] + arguments + ["receipts/sample.receipt"])
            #expect(bad.status == 1, "\(arguments)")
            #expect(bad.output.contains("FAIL: expected") || bad.output.contains("FAIL: SHA-1 hash does not match"), "\(arguments)")
        }
        #expect(try run("--device-guid", "xyz", "receipts/sample.receipt").status == 64)
    }

    @Test func creditedReconciliation() throws {
        let text = try run("--root", "pki/test-root.der", "--credited", "credited.txt", "receipts/sample.receipt")
        #expect(text.status == 0)
        #expect(text.output.contains("Not yet credited (2): 2000000000000002, 2000000000000003"))
        #expect(text.output.contains("Credited but not in this receipt (1): 1999999999999999"))

        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("credited-\(UUID().uuidString).json")
        try Data("[\"2000000000000002\", 2000000000000003]".utf8).write(to: temporary)
        defer { try? FileManager.default.removeItem(at: temporary) }
        let result = try run("--format", "json", "--root", "pki/test-root.der", "--credited", temporary.path, "receipts/sample.receipt")
        let object = try #require(try json(result) as? [String: Any])
        let reconciliation = try #require(object["reconciliation"] as? [String: [String]])
        #expect(reconciliation["notCredited"] == ["2000000000000001"])
        #expect(reconciliation["notInReceipt"] == [])
        #expect(try run("--credited", "receipts/no-such-file", "receipts/sample.receipt").status == 64)
    }

    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing))
    func realReceiptsInBatch() throws {
        let folder = Paths.corpus.appendingPathComponent("real").path
        let apple = try run("--format", "summary", folder)
        #expect(apple.status == 1)  // the 5 Xcode receipts do not verify as App Store receipts
        let lines = apple.output.split(separator: "\n")
        #expect(lines.count == 43)
        #expect(lines.filter { $0.contains("\tverified\t") }.count == 38)
        #expect(lines.filter { $0.contains("\tnot verified (missingAppleExtension)\t") }.count == 5)
        #expect(apple.errors.contains("Totals: 43 receipts, 38 verified, 5 not verified, 0 unreadable"))

        let sample = Paths.corpus.appendingPathComponent("real/sandbox-20200722T1739-com.revenuecat.sampleapp.receipt").path
        // --at both judges the certificates (valid 2015-2023) and sets the status instant.
        let text = try run("--at", "2020-07-14T19:40:00Z", sample)
        #expect(text.status == 0)
        #expect(text.output.contains("Subscriptions at 2020-07-14T19:40:00Z: com.revenuecat.monthly_4.99.1_week_intro active until 2020-07-14T19:41:40Z"))
        #expect(text.output.contains("In-app purchases: 9, by purchase date"))
        #expect(try run("--at", "2026-01-01T00:00:00Z", sample).status == 1)  // Apple's signer expired 2023
        let object = try #require(try json(try run("--format", "json", "--certs", sample)) as? [String: Any])
        let receipt = try #require(object["receipt"] as? [String: Any])
        #expect((receipt["inAppPurchases"] as? [Any])?.count == 9)
        #expect(receipt["bundleID"] as? String == "com.revenuecat.sampleapp")
        let certificates = try #require(object["certificates"] as? [[String: Any]])
        #expect(certificates.map { $0["appleMarkers"] as? [String] ?? [] } == [["receiptSigning"], ["wwdrIntermediate"], []])
        let verification = try #require(object["verification"] as? [String: Any])
        #expect(verification["digestAlgorithm"] as? String == "SHA-1")
        let appleFormat = try run("--format", "verifyreceipt", "--environment", "sandbox", sample)
        #expect(((try json(appleFormat) as? [String: Any])?["receipt"] as? [String: Any])?["bundle_id"] as? String == "com.revenuecat.sampleapp")
        let filtered = try run("--active-at", "2020-07-14T19:40:00Z", sample)
        #expect(filtered.status == 0)
        #expect(filtered.output.contains("In-app purchases: 1 shown of 9"))
    }
}

/// Terminal-only behaviour (colour, progress bar), run under util-linux `script` for a terminal.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script is missing"))
struct TerminalTests {
    func onTerminal(_ arguments: String) throws -> String {
        let binary = try #require(ReceiptDumpTests.binary)
        let transcript = FileManager.default.temporaryDirectory.appendingPathComponent("tty-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: transcript) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "\(binary.path) \(arguments)", transcript.path]
        process.currentDirectoryURL = Paths.fixtures
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = nil  // the test runner may set it; this test is about colour
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        return String(decoding: try Data(contentsOf: transcript), as: UTF8.self)
    }

    @Test func colourOnATerminalUnlessTurnedOff() throws {
        let coloured = try onTerminal("--root pki/test-root.der receipts/sample.receipt")
        #expect(coloured.contains("\u{1B}[32mVERIFIED\u{1B}[0m"))
        let plain = try onTerminal("--no-color --root pki/test-root.der receipts/sample.receipt")
        #expect(plain.contains("VERIFIED (appStore"))
        #expect(!plain.contains("\u{1B}["))
    }

    @Test func progressBarForBatchesOnATerminal() throws {
        let transcript = try onTerminal("--format summary --root pki/test-root.der receipts/sample.receipt receipts/sha1.receipt")
        #expect(transcript.contains("] 2/2"))
        #expect(transcript.contains("Totals: 2 receipts, 2 verified"))
    }
}
