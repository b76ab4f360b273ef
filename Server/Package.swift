// swift-tools-version: 6.1
// The server: API, fan-out and delivery, APNs transport and simulator, CLI. The SDK (and the API's Codable types
// it shares with the server) is the package at the repository's root, so an app that adds the repository by URL
// resolves none of the packages below.
import PackageDescription

/// SwiftPM names a path dependency after its folder: the root package's identity is the clone's folder name.
let sdk = Context.packageDirectory.split(separator: "/").dropLast().last.map { String($0).lowercased() } ?? "signalbox"

let package = Package(
    name: "signalbox-server",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "signalbox", targets: ["signalbox"]),
        .library(name: "SignalboxAPNs", targets: ["SignalboxAPNs"]),
        .library(name: "SignalboxAPNsHTTP2", targets: ["SignalboxAPNsHTTP2"]),
        .library(name: "APNsSimulator", targets: ["APNsSimulator"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: [.defaults, "YAML"]),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
    ],
    targets: [
        // Pure domain: registrations, events, fan-out planning. No server packages; APNs payloads from SignalboxAPNs.
        .target(
            name: "SignalboxModel",
            dependencies: ["SignalboxAPNs", .product(name: "SignalboxAPI", package: sdk)]
        ),
        // APNs wire protocol without I/O: push types, headers, payloads, JWT, classification.
        .target(
            name: "SignalboxAPNs",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // Production APNs transport: TLS, HTTP/2 connections, SETTINGS, GOAWAY, PING.
        .target(
            name: "SignalboxAPNsHTTP2",
            dependencies: [
                "SignalboxAPNs",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // An HTTP/2-over-TLS APNs double that validates like APNs and injects faults.
        .target(
            name: "APNsSimulator",
            dependencies: [
                "SignalboxAPNs", "SignalboxAPNsHTTP2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // The storage ports' SQL implementation on SQLite (embedded) and PostgreSQL (scale-out), migrations.
        .target(
            name: "SignalboxStore",
            dependencies: [
                "SignalboxModel",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
            ]
        ),
        // The delivery engine: fan-out and dispatcher services over the storage ports, with an injected clock.
        .target(
            name: "SignalboxDelivery",
            dependencies: [
                "SignalboxModel", "SignalboxAPNs",
                .product(name: "SignalboxAPI", package: sdk),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Signed webhooks: the sending service (HTTP/1.1 through async-http-client), signatures, back-off.
        .target(
            name: "SignalboxWebhooks",
            dependencies: [
                "SignalboxModel", "SignalboxDelivery",
                .product(name: "SignalboxAPI", package: sdk),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Composition: Hummingbird routes, auth, services, metrics (the dashboard's pages are SignalboxDashboard).
        .target(
            name: "SignalboxServer",
            dependencies: [
                "SignalboxModel", "SignalboxAPNs", "SignalboxDelivery", "SignalboxStore", "SignalboxWebhooks",
                .product(name: "SignalboxAPI", package: sdk),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The API's contract, served at /openapi.json and compiled into the binary.
            resources: [.embedInCode("OpenAPI/openapi.json")]
        ),
        // The operators' web pages (`/dashboard`): routes, views, sessions in the database, templates as files.
        .target(
            name: "SignalboxDashboard",
            dependencies: [
                "SignalboxServer", "SignalboxModel", "SignalboxAPNs", "SignalboxDelivery",
                .product(name: "SignalboxAPI", package: sdk),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // Compiled into the binary: a release binary run from anywhere needs no source tree or bundle.
            resources: [
                .embedInCode("Templates/layout.mustache"),
                .embedInCode("Templates/csrf.mustache"),
                .embedInCode("Templates/logTable.mustache"),
                .embedInCode("Templates/outcomeTable.mustache"),
                .embedInCode("Templates/login.mustache"),
                .embedInCode("Templates/apps.mustache"),
                .embedInCode("Templates/secret.mustache"),
                .embedInCode("Templates/deleteApp.mustache"),
                .embedInCode("Templates/overview.mustache"),
                .embedInCode("Templates/inspect.mustache"),
                .embedInCode("Templates/event.mustache"),
                .embedInCode("Templates/send.mustache"),
                .embedInCode("Templates/message.mustache"),
                .embedInCode("Templates/check.mustache"),
                .embedInCode("Templates/apnsKey.mustache"),
                .embedInCode("Templates/webhooks.mustache"),
                .embedInCode("Templates/style.css"),
            ]
        ),
        // The CLI operators and app developers use: serve, apps, send, simulate-apns, simulate-device.
        .executableTarget(
            name: "signalbox",
            dependencies: [
                "SignalboxAPNs", "SignalboxAPNsHTTP2", "APNsSimulator", "SignalboxServer", "SignalboxDashboard",
                .product(name: "SignalboxAPI", package: sdk),
                .product(name: "SignalboxClient", package: sdk),
                .product(name: "SignalboxClientApple", package: sdk),
                .product(name: "AppleFrameworkStubs", package: sdk, condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What the test targets share: child processes that never outlive the test run.
        .target(name: "SignalboxTestSupport", path: "Tests/SignalboxTestSupport"),
        // The storage ports in memory, built on the model's rules: the reference the SQL backends are checked
        // against. Only tests depend on it; it is no part of the shipped `signalbox`.
        .target(
            name: "SignalboxMemoryStore",
            dependencies: ["SignalboxModel", .product(name: "SignalboxAPI", package: sdk)],
            path: "Tests/SignalboxMemoryStore"
        ),
        // The lab, not shipped: benchmarks and fault injection (`signalbox-bench`). No declared product; it starts
        // the `signalbox` built beside it as server and simulator.
        .executableTarget(
            name: "signalbox-bench",
            dependencies: [
                "SignalboxAPNs", "SignalboxAPNsHTTP2", "APNsSimulator", "SignalboxServer", "SignalboxModel", "SignalboxStore",
                .product(name: "SignalboxAPI", package: sdk),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The SDK driven against a real server process (the root package's own tests need no server).
        .testTarget(
            name: "ClientLiveTests",
            dependencies: [
                "SignalboxTestSupport",
                .product(name: "SignalboxClient", package: sdk),
                .product(name: "SignalboxClientTesting", package: sdk),
                .product(name: "SignalboxAPI", package: sdk),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "SignalboxDeliveryTests",
            dependencies: [
                "SignalboxDelivery", "SignalboxMemoryStore", "SignalboxModel", "SignalboxAPNs", "SignalboxTestSupport",
                .product(name: "SignalboxAPI", package: sdk),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SignalboxModelTests",
            dependencies: ["SignalboxModel", "SignalboxAPNs", .product(name: "SignalboxAPI", package: sdk)]
        ),
        .testTarget(
            name: "SignalboxAPNsTests",
            dependencies: ["SignalboxAPNs", "SignalboxTestSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "APNsSimulatorTests",
            dependencies: [
                "APNsSimulator", "SignalboxAPNs",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "APNsIntegrationTests",
            dependencies: [
                "SignalboxAPNs", "SignalboxAPNsHTTP2", "APNsSimulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        // What the store tests and the server's tests share: the SQL backends to run on (a fresh PostgreSQL
        // database per store), the ports a conformance suite drives from every backend, fixtures.
        .target(
            name: "SignalboxStoreTestSupport",
            dependencies: [
                "SignalboxMemoryStore", "SignalboxModel", "SignalboxStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/SignalboxStoreTestSupport"
        ),
        // The storage ports on every backend (memory, SQLite, PostgreSQL): the conformance suites, the cross-check
        // against the memory store, and the SQL stores' own tests.
        .testTarget(
            name: "SignalboxStoreTests",
            dependencies: [
                "SignalboxStoreTestSupport", "SignalboxMemoryStore", "SignalboxModel", "SignalboxStore", "SignalboxDelivery",
                "SignalboxAPNs", "APNsSimulator",
                .product(name: "SignalboxAPI", package: sdk),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "SQLKit", package: "sql-kit"),
            ]
        ),
        .testTarget(
            name: "SignalboxServerTests",
            dependencies: [
                "SignalboxTestSupport", "SignalboxStoreTestSupport", "SignalboxDashboard", "SignalboxMemoryStore",
                "SignalboxModel", "SignalboxStore", "SignalboxServer", "SignalboxDelivery", "SignalboxWebhooks",
                .product(name: "SignalboxAPI", package: sdk),
                "SignalboxAPNs", "SignalboxAPNsHTTP2", "APNsSimulator",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
