// swift-tools-version:6.1
// Benchmarks for ReceiptParser (ordo-one/benchmark). Kept out of the main package so that its
// dependencies and the malloc interposer never reach the library's users or CI's test run.
//
//     python3 scripts/generate-receipts.py     # once: the generated receipts, git-ignored
//     swift package --disable-sandbox benchmark
//
// See ../BENCHMARKS.md for the figures and the exact commands.
import PackageDescription
import class Foundation.ProcessInfo
import struct Foundation.URL

// A path dependency is named after its folder, which is wherever the repository was cloned.
let mainPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "ReceiptParserBenchmarks",
    platforms: [.macOS(.v13)],
    traits: [
        .trait(name: "JWTKitPeer", description: "jwt-kit's X5CVerifier benchmarked beside ours (JWTKitPeer.swift)"),
        .default(enabledTraits: ["JWTKitPeer"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // The StoreKit 2 token benchmarks' peer: X5CVerifier, side by side in the same run.
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),  // X5CValidationTime (.signedDate) is new in 5.8.0
    ],
    targets: [
        // libcrypto for the C reference floors (the same library ReceiptParser uses).
        .systemLibrary(
            name: "CFloorLibcrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // The C reference floors: d2i_PKCS7, PKCS7_verify, signature-only, raw DER walk; for
        // StoreKit 2 tokens ES256-only and the x5c chain (d2i_X509, X509_verify).
        // The same file builds as a standalone program (scripts/c-floor).
        .target(name: "CFloor", dependencies: ["CFloorLibcrypto"]),
        .executableTarget(
            name: "ReceiptBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ReceiptParser", package: mainPackage),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                // Off in scripts/test's compile check (--disable-default-traits): jwt-kit and the
                // crypto stack under it took half of that build.
                .product(name: "JWTKit", package: "jwt-kit", condition: .when(traits: ["JWTKitPeer"])),
                "CFloor",
            ],
            path: "Benchmarks/ReceiptBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
