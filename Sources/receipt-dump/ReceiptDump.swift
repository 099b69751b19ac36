import ArgumentParser
import Foundation
import ReceiptParser

@main
struct ReceiptDump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt-dump",
        abstract: "Verify and decode Apple App Store receipts, offline.",
        discussion: """
        Each FILE may hold the receipt as binary DER/BER, as base64 (wrapped or not), or as a
        verifyReceipt request body {"receipt-data": "..."}.

        By default a receipt must chain to Apple Inc. Root under Apple's receipt rules, with
        certificates judged at the receipt's creation date.

        Exit status: 0 every receipt verified; 1 a receipt decoded but did not verify;
        2 a receipt could not be read or decoded; 64 usage error. With several files, the worst.
        With --no-verify, 0 means every receipt decoded.
        """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, summary
    }

    @Option(name: .long, help: "Output format: text for people, json for machines, summary for one line per receipt.")
    var format: Format = .text

    @Option(name: .long, help: ArgumentHelp("Trust this root (DER or PEM) instead of Apple Inc. Root; Apple's chain rules still apply.", valueName: "CERT"))
    var root: String?

    @Option(name: .customLong("storekit-testing"), help: ArgumentHelp("Verify Xcode StoreKit Testing receipts signed by this certificate (DER or PEM), exported from Xcode.", valueName: "CERT"))
    var storeKitTesting: String?

    @Flag(name: .customLong("no-verify"), help: "Decode without verifying the signature or the chain.")
    var noVerify = false

    @Option(name: .long, help: ArgumentHelp("Judge certificates at this RFC 3339 instant instead of the receipt's creation date.", valueName: "RFC3339"))
    var at: String?

    @Flag(name: .customLong("require-sha256"), help: "Reject SHA-1 in the receipt signature and the certificate chain.")
    var requireSHA256 = false

    @Argument(help: ArgumentHelp("Receipt files.", valueName: "FILE"))
    var files: [String]

    func validate() throws {
        if root != nil && storeKitTesting != nil {
            throw ValidationError("--root and --storekit-testing exclude each other.")
        }
        if noVerify && (root != nil || storeKitTesting != nil || at != nil || requireSHA256) {
            throw ValidationError("--no-verify excludes --root, --storekit-testing, --at and --require-sha256.")
        }
        if let at, RFC3339.date(from: at) == nil {
            throw ValidationError("--at takes an RFC 3339 time such as 2024-05-01T12:00:00Z, not '\(at)'.")
        }
    }

    func run() throws {
        let verifier = noVerify ? nil : try makeVerifier()
        var results: [DumpResult] = []
        for file in files {
            results.append(DumpResult.make(file: file, verifier: verifier))
        }
        switch format {
        case .text:
            print(results.map { TextReport.render($0) }.joined(separator: "\n"), terminator: "")
        case .json:
            print(try JSONReport.render(results))
        case .summary:
            for result in results { print(SummaryReport.render(result)) }
        }
        let status = results.map(\.exitStatus).max() ?? 0
        if status != 0 { throw ExitCode(status) }
    }

    private func makeVerifier() throws -> ReceiptVerifier {
        var policy = VerificationPolicy(requiresSHA256: requireSHA256)
        if let at, let instant = RFC3339.date(from: at) {
            policy.validationTime = .instant(instant)
        }
        do {
            if let root {
                return ReceiptVerifier(anchor: try .appStore(rootCertificate: try readFile(root)), policy: policy)
            }
            if let storeKitTesting {
                return ReceiptVerifier(anchor: try .storeKitTesting(certificate: try readFile(storeKitTesting)), policy: policy)
            }
        } catch let error as ReceiptError {
            throw ValidationError("cannot use the certificate: \(error.reason)")
        }
        return ReceiptVerifier(policy: policy)
    }
}

func readFile(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationError("cannot read \(path)")
    }
    return [UInt8](data)
}
