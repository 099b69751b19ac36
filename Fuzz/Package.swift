// swift-tools-version:6.0
// libFuzzer targets for ReceiptParser. Build and run them with Fuzz/run.sh; see the README's
// "Fuzzing" section. Built with -sanitize=fuzzer,address, so only useful through run.sh.
import PackageDescription

let package = Package(
    name: "ReceiptParserFuzz",
    dependencies: [
        .package(name: "ReceiptParser", path: ".."),
    ],
    targets: [
        // libFuzzer's driver and the code every target shares.
        .target(name: "CFuzzDriver"),
        // What each target does with one input is the main package's FuzzHarness, which the unit
        // tests use to replay Fuzz/regressions through exactly these code paths.
        .target(name: "FuzzEntry", dependencies: [
            "CFuzzDriver",
            .product(name: "FuzzHarness", package: "ReceiptParser"),
        ]),
        .executableTarget(name: "fuzz-pipeline", dependencies: ["FuzzEntry"]),
        .executableTarget(name: "fuzz-payload", dependencies: ["FuzzEntry"]),
        .executableTarget(name: "fuzz-input", dependencies: ["FuzzEntry"]),
        .executableTarget(name: "fuzz-render", dependencies: ["FuzzEntry"]),
        .executableTarget(name: "fuzz-json", dependencies: ["FuzzEntry"]),
        .executableTarget(name: "fuzz-token", dependencies: ["FuzzEntry"]),
    ]
)
