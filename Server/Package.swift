// swift-tools-version:6.0
import PackageDescription

// The verifyReceipt-compatible server lives in its own package so the library stays free of
// server dependencies (SwiftNIO, Hummingbird) for everyone who only links ReceiptParser.
let package = Package(
    name: "ReceiptServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "receipt-server", targets: ["receipt-server"]),
        // The App Store Server API client: Apple's calls within Apple's limits, every signed
        // answer verified. Here, beside the server, so the library stays free of HTTP.
        .library(name: "AppStoreServerAPI", targets: ["AppStoreServerAPI"]),
        // `receipt-dump api …`: receipt-dump runs this program for its api commands.
        .executable(name: "receipt-dump-api", targets: ["receipt-dump-api"]),
    ],
    dependencies: [
        .package(name: "ReceiptParser", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        // The credit ledger's embedded store: SQLite in WAL mode through a DatabasePool.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The credit ledger's shared store, for several receipt-server processes on several machines.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // GET /metrics: the metrics API, and a Prometheus registry per application behind it.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Webhooks out: HMAC-SHA256 signatures (Standard Webhooks), and the HTTP client that posts them.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.24.0"),
        // Tests only: reads Server/openapi.yaml to compare it with the router.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // The credit ledger: its rules and its storage, apart from HTTP so that they are
        // tested on their own and the same rules run over SQLite or PostgreSQL.
        .target(
            name: "ReceiptLedger",
            dependencies: [
                .product(name: "ReceiptParser", package: "ReceiptParser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, which GRDB links: the ledger binds and reads its statements directly.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "AppStoreServerAPI",
            dependencies: [
                .product(name: "ReceiptParser", package: "ReceiptParser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .target(
            name: "ReceiptServer",
            dependencies: [
                .product(name: "ReceiptParser", package: "ReceiptParser"),
                // The credit ledger behind the /v1/credits routes.
                "ReceiptLedger",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // Healing from Apple: the reconciler and the support page's order lookups.
                "AppStoreServerAPI",
            ],
            // The OpenAPI document of every route, served at GET /openapi.yaml.
            resources: [.copy("openapi.yaml")]
        ),
        .executableTarget(
            name: "receipt-server",
            dependencies: [
                "ReceiptServer",
                "AppStoreServerAPI",
                "ReceiptLedger",
                .product(name: "ReceiptCommandLine", package: "ReceiptParser"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "receipt-dump-api",
            dependencies: [
                "AppStoreServerAPI",
                .product(name: "ReceiptParser", package: "ReceiptParser"),
                .product(name: "ReceiptReports", package: "ReceiptParser"),
                .product(name: "ReceiptCommandLine", package: "ReceiptParser"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // An offline Apple: the App Store Server API's routes on loopback, tokens signed by the
        // test PKI, every bearer JWT checked, faults on command.
        .target(
            name: "AppleSimulator",
            dependencies: [
                "AppStoreServerAPI",
                // Runs the built receipt-dump-api.
                "ServerTestSupport",
                .product(name: "ReceiptParser", package: "ReceiptParser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/AppleSimulator"
        ),
        .testTarget(
            name: "AppStoreServerAPITests",
            dependencies: [
                "AppStoreServerAPI",
                "AppleSimulator",
                // Two servers' budget in one ledger, timed here, apart from the server's busy tests.
                "ReceiptServer",
                "ReceiptLedger",
                "ServerTestSupport",
                .product(name: "ReceiptParser", package: "ReceiptParser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        // What the test targets share: a clock moved by hand, a temporary folder, a child process.
        .target(name: "ServerTestSupport", path: "Tests/ServerTestSupport"),
        .testTarget(
            name: "ReceiptLedgerTests",
            dependencies: [
                "ReceiptLedger",
                "ServerTestSupport",
                // Signs the Apple scenarios' notifications with the test PKI's ES256 key.
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ReceiptServerTests",
            dependencies: [
                "ReceiptServer",
                "ReceiptLedger",
                "ServerTestSupport",
                "receipt-server",  // the command's options, parsed as on a command line
                // receipt-dump's judgement and options, run beside the server's on every fixture.
                .product(name: "ReceiptReports", package: "ReceiptParser"),
                .product(name: "ReceiptCommandLine", package: "ReceiptParser"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // Where the test data is, and the fixture manifests' reader.
                .product(name: "ReceiptTestSupport", package: "ReceiptParser"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Yams", package: "Yams"),
                // The offline Apple the reconciler talks to, and an independent ES256 check of the offers.
                "AppleSimulator",
                "AppStoreServerAPI",
                .product(name: "Crypto", package: "swift-crypto"),
                // WebDriver's HTTP commands to chromedriver (the browser tests).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ]
)
