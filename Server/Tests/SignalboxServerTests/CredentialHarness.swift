import APNsSimulator
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SignalboxAPNs
import SignalboxAPNsHTTP2
import SignalboxDashboard
import SignalboxServer

/// The whole server with APNs as two simulators, one playing sandbox and one production, that trust only the keys a
/// test registers (as Apple knows only the keys issued in its console).
struct CredentialHarness {
    let api: APIClient
    let sandbox: APNsSimulator
    let production: APNsSimulator

    static func run(_ body: @escaping @Sendable (CredentialHarness) async throws -> Void) async throws {
        // One certificate for both: a client's trust store cannot tell apart two self-signed ones of one name.
        let tls = try APNsSimulator.TLS.selfSigned()
        var sandboxConfiguration = APNsSimulator.Configuration()
        sandboxConfiguration.environment = .sandbox
        sandboxConfiguration.tls = tls
        var productionConfiguration = sandboxConfiguration
        productionConfiguration.environment = .production
        let sandbox = try await APNsSimulator.start(configuration: sandboxConfiguration, logger: Logger(label: "test.sandbox"))
        let production: APNsSimulator
        do {
            production = try await APNsSimulator.start(configuration: productionConfiguration, logger: Logger(label: "test.production"))
        } catch {
            try? await sandbox.shutdown()
            throw error
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-test-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.adminKey = Harness.adminKey
        configuration.boundOnlyAgainstHangs()
        var transportConfiguration = HTTP2Transport.Configuration()
        transportConfiguration.endpoints = [
            .sandbox: .init(host: "127.0.0.1", port: sandbox.port), .production: .init(host: "127.0.0.1", port: production.port),
        ]
        transportConfiguration.trustRoots = .pem(sandbox.certificatePEM)
        transportConfiguration.boundOnlyAgainstHangs()
        let outcome: Result<Void, any Error>
        do {
            let transport = try HTTP2Transport(configuration: transportConfiguration, logger: Logger(label: "test.transport"))
            do {
                let app = try await buildApplication(
                    configuration: configuration, transport: transport, extensions: [Dashboard()], logger: Logger(label: "test.server"))
                try await LiveServer.run(app) { server in
                    try await body(CredentialHarness(api: APIClient(client: server.sender), sandbox: sandbox, production: production))
                }
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            try? await transport.shutdown()
        } catch {
            try? await sandbox.shutdown()
            try? await production.shutdown()
            throw error
        }
        try? await sandbox.shutdown()
        try? await production.shutdown()
        try outcome.get()
    }

    /// Makes both simulators know `key` (optionally for one environment or some bundle ids only).
    func trust(_ key: P256.Signing.PrivateKey, keyId: String, teamId: String = "TEAM123456", environment: APNsEnvironment? = nil, bundleIds: Set<String>? = nil) {
        for simulator in [sandbox, production] {
            simulator.register(publicKey: key.publicKey, keyId: keyId, teamId: teamId, environment: environment, bundleIds: bundleIds)
        }
    }
}

/// A `PUT …/apns-key` or `POST …/apns-key/check` body.
func keyBody(_ key: P256.Signing.PrivateKey, keyId: String, teamId: String = "TEAM123456", environment: String? = nil) -> String {
    let environmentField = environment.map { #","environment":"\#($0)""# } ?? ""
    return #"{"teamId":"\#(teamId)","keyId":"\#(keyId)","privateKey":\#(jsonString(key.pemRepresentation))\#(environmentField)}"#
}
