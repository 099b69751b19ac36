// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ReceiptParser",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ReceiptParser", targets: ["ReceiptParser"]),
        .executable(name: "receipt-dump", targets: ["receipt-dump"]),
        // receipt-dump's reports (what one input gave, and its text, asn1, summary and JSON
        // renderings), a product so the fuzz package can render with them; not a supported API.
        .library(name: "ReceiptReports", targets: ["ReceiptReports"]),
        // The trust options receipt-dump and receipt-server share (--root, --storekit-testing,
        // --require-sha256, --at), a product so the server package can use them; not a supported API.
        .library(name: "ReceiptCommandLine", targets: ["ReceiptCommandLine"]),
        // What each fuzz target does with one input, a product so the fuzz package's libFuzzer
        // executables call it; the unit tests replay Fuzz/regressions through the same code.
        .library(name: "FuzzHarness", targets: ["FuzzHarness"]),
        // Where the test data is and the fixture manifests' reader, a product so the server
        // package's tests read the same fixtures the same way; not a supported API.
        .library(name: "ReceiptTestSupport", targets: ["ReceiptTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // OpenSSL's libcrypto, found through pkg-config (libssl-dev on Debian, openssl@3 on Homebrew).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // The thin C layer: certificate parsing, digests and signature checks. No policy.
        .target(name: "CReceiptCrypto", dependencies: ["COpenSSL"]),
        .target(name: "ReceiptParser", dependencies: ["CReceiptCrypto"]),
        .target(name: "ReceiptReports", dependencies: ["ReceiptParser"]),
        .target(
            name: "ReceiptCommandLine",
            dependencies: ["ReceiptParser", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // receipt-dump's worker threads, started on their own processors (GNU calls Swift cannot
        // see); used by the CLI only. Kept over Dispatch's concurrentPerform, whose second thread
        // starts late: measured in BENCHMARKS.md (the 2-core batch, 2 000 receipts).
        .target(name: "CReceiptDumpThreads"),
        .executableTarget(
            name: "receipt-dump",
            dependencies: [
                "ReceiptParser",
                "ReceiptReports",
                "ReceiptCommandLine",
                "CReceiptDumpThreads",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "FuzzHarness", dependencies: ["ReceiptParser", "ReceiptReports"]),
        // What both test targets share: where the test data is, the fixture manifest's reader,
        // receipts built inside a test, and the expectations both suites hold the same rules to.
        .target(name: "ReceiptTestSupport", dependencies: ["ReceiptParser"], path: "Tests/ReceiptTestSupport"),
        // A process that exits while another thread verifies; ProcessExitTests runs it.
        .executableTarget(
            name: "verify-while-exiting",
            dependencies: ["ReceiptParser", "ReceiptTestSupport"],
            path: "Tests/VerifyWhileExiting"
        ),
        // The library's suites.
        .testTarget(name: "ReceiptParserTests", dependencies: ["ReceiptParser", "ReceiptReports", "FuzzHarness", "ReceiptTestSupport"]),
        // receipt-dump's suites: the built tool run as a child process, and its reports.
        .testTarget(
            name: "ReceiptDumpTests",
            dependencies: ["ReceiptParser", "ReceiptReports", "FuzzHarness", "ReceiptTestSupport"],
            exclude: ["Golden"]
        ),
    ]
)
