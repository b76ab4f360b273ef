// swift-tools-version: 6.1
// The app-side SDK: what an iOS app adds by this repository's URL. It depends on no package at all, so an app
// keeps its own versions of NIO, swift-crypto and the rest. The server is its own package in `Server/`.
import PackageDescription

let package = Package(
    name: "Signalbox",
    // Mutex (Synchronization) needs the 2024 releases. Newer APIs are guarded inside the glue: widget push handlers
    // (26 everywhere), controls (iOS 18, macOS 26, watchOS 26, not visionOS/tvOS), File Provider (not watchOS, tvOS,
    // Mac Catalyst); docs/apple-symbols.md.
    platforms: [.iOS(.v18), .macOS(.v15), .watchOS(.v11), .visionOS(.v2), .tvOS(.v18), .macCatalyst(.v18)],
    products: [
        .library(name: "SignalboxClient", targets: ["SignalboxClient"]),
        .library(name: "SignalboxClientApple", targets: ["SignalboxClientApple"]),
        .library(name: "SignalboxAPI", targets: ["SignalboxAPI"]),
        // Doubles for an app's own tests of its Signalbox code: a manual clock, an in-memory transport.
        .library(name: "SignalboxClientTesting", targets: ["SignalboxClientTesting"]),
        // Linux only (empty on Apple platforms): Apple's WidgetKit/PushKit/FileProvider declarations and the test
        // runtime that plays the system, for `signalbox simulate-device` and tests of the glue.
        .library(name: "AppleFrameworkStubs", targets: ["AppleFrameworkStubs"]),
    ],
    targets: [
        // Codable request/response types of the HTTP API, shared by the server and the SDK.
        .target(name: "SignalboxAPI"),
        // The app-side SDK: registration sync queue, device credentials, enumerator leases. Foundation only. Its
        // privacy manifest is a resource (what the SDK collects); SignalboxClient.docc is the integration guide.
        .target(name: "SignalboxClient", dependencies: ["SignalboxAPI"], resources: [.copy("PrivacyInfo.xcprivacy")]),
        // WidgetKit, PushKit and File Provider glue for SignalboxClient. On Linux it type-checks against
        // AppleFrameworkStubs (Apple's declarations, see docs/apple-symbols.md); on Apple platforms it uses the
        // real frameworks.
        .target(
            name: "SignalboxClientApple",
            dependencies: [
                "SignalboxClient", "SignalboxAPI",
                .target(name: "AppleFrameworkStubs", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: [.define("SIGNALBOX_APPLE_STUBS", .when(platforms: [.linux]))]
        ),
        .target(name: "AppleFrameworkStubs"),
        .target(name: "SignalboxClientTesting", dependencies: ["SignalboxClient"]),
        // The README's Swift snippets (Linux: over the stubs); built with the tests, checked by ReadmeSnippetsTests.
        .testTarget(
            name: "SignalboxExamples",
            dependencies: [
                "SignalboxClient", "SignalboxClientApple", "SignalboxAPI",
                .target(name: "AppleFrameworkStubs", condition: .when(platforms: [.linux])),
            ],
            path: "Examples"
        ),
        .testTarget(
            name: "SignalboxClientTests",
            dependencies: [
                "SignalboxClient", "SignalboxClientApple", "SignalboxAPI", "SignalboxClientTesting",
                .target(name: "AppleFrameworkStubs", condition: .when(platforms: [.linux])),
            ]
        ),
    ]
)
