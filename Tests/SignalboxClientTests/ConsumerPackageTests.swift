import Foundation
import Testing

/// An app that adds this repository as a package must resolve nothing of the server: a throw-away consumer
/// package depends on the repository's root and uses both SDK products; its resolved graph holds no package but
/// the SDK itself.
@Suite struct ConsumerPackageTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func anAppAddingTheSDKResolvesNoServerPackage() throws {
        let consumer = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-consumer-\(UUID())")
        defer { try? FileManager.default.removeItem(at: consumer) }
        try FileManager.default.createDirectory(
            at: consumer.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
        let identity = Self.repositoryRoot.lastPathComponent.lowercased()
        try """
        // swift-tools-version: 6.1
        import PackageDescription
        let package = Package(
            name: "Consumer",
            platforms: [.iOS(.v18)],
            dependencies: [.package(path: "\(Self.repositoryRoot.path)")],
            targets: [
                .target(name: "App", dependencies: [
                    .product(name: "SignalboxClient", package: "\(identity)"),
                    .product(name: "SignalboxClientApple", package: "\(identity)"),
                ]),
            ]
        )
        """.write(to: consumer.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "import SignalboxClient\n".write(
            to: consumer.appendingPathComponent("Sources/App/App.swift"), atomically: true, encoding: .utf8)

        let graph = try Self.swiftPackage(["show-dependencies", "--format", "json"], in: consumer)
        let root = try #require(try JSONSerialization.jsonObject(with: graph) as? [String: Any])
        let direct = try #require(root["dependencies"] as? [[String: Any]])
        #expect(direct.map { $0["identity"] as? String } == [identity])
        let transitive = direct.flatMap { ($0["dependencies"] as? [[String: Any]]) ?? [] }
        #expect(transitive.isEmpty, "the SDK pulls packages: \(transitive.compactMap { $0["identity"] })")

        // Package.resolved pins every remote package; the SDK, a local path here, needs none.
        let resolved = consumer.appendingPathComponent("Package.resolved")
        if let data = FileManager.default.contents(atPath: resolved.path) {
            let pins = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["pins"] as? [Any]
            #expect(pins?.isEmpty ?? true, "Package.resolved pins: \(String(decoding: data, as: UTF8.self))")
        }
    }

    /// Runs `swift package ARGS` in `directory` and returns its standard output; throws on a non-zero exit.
    static func swiftPackage(_ arguments: [String], in directory: URL) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", directory.path] + arguments
        let output = Pipe()
        let errors = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ConsumerPackageError(message: "swift package \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return data
    }
}

struct ConsumerPackageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
