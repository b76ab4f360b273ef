import APNsSimulator
import Crypto
import Foundation
import Logging
import SignalboxAPNs
import SignalboxAPNsHTTP2

/// A running simulator, a registered key and a transport that trusts the simulator.
struct SimulatorFixture {
    static let bundleId = "com.example.garage"
    let simulator: APNsSimulator
    let transport: HTTP2Transport
    let key: SigningKey
    let tokens: ProviderTokenManager
    let client: APNsClient

    /// Starts a simulator and a transport; call `stop()` at the end.
    static func start(
        simulator configuration: APNsSimulator.Configuration = .init(),
        transport adjust: (inout HTTP2Transport.Configuration) -> Void = { _ in },
        tokenClock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "test.transport")
    ) async throws -> SimulatorFixture {
        let simulator = try await APNsSimulator.start(configuration: configuration, logger: Logger(label: "test.simulator"))
        let key = SigningKey(privateKey: P256.Signing.PrivateKey(), keyId: "KEY1234567", teamId: "TEAM123456")
        simulator.register(publicKey: key.publicKey, keyId: key.keyId, teamId: key.teamId)
        var transportConfiguration = HTTP2Transport.Configuration.singleEndpoint(
            host: "127.0.0.1", port: simulator.port, trustRoots: .pem(simulator.certificatePEM)
        )
        transportConfiguration.reconnectBackoff = .milliseconds(20)
        // A bound for a hang: a loaded run may take tens of seconds for a local TLS handshake.
        transportConfiguration.connectTimeout = .seconds(120)
        // A PING answer can wait seconds in a loaded run; a closed connection would re-send its pushes.
        transportConfiguration.pingTimeout = .seconds(120)
        adjust(&transportConfiguration)
        let transport = try HTTP2Transport(configuration: transportConfiguration, logger: logger)
        let tokens = ProviderTokenManager(key: key, now: tokenClock)
        return SimulatorFixture(
            simulator: simulator, transport: transport, key: key, tokens: tokens,
            // A bound for a machine under load (the parallel suite beside other builds), not a figure under test.
            client: APNsClient(transport: transport, timeout: .seconds(300))
        )
    }

    func stop() async throws {
        try await transport.shutdown()
        try await simulator.shutdown()
    }

    /// A push of `type` to a fresh random token.
    func push(_ type: PushType, token: String = randomToken()) throws -> Push {
        let payload: [UInt8]? = type == .fileprovider ? Payload.fileProvider(container: "folder-1", domain: "acct-7") : nil
        return try Push(deviceToken: DeviceToken(hex: token), pushType: type, bundleId: Self.bundleId, payload: payload)
    }

    func send(_ push: Push) async throws -> APNsClient.Result {
        try await client.send(push, environment: .sandbox, tokens: tokens)
    }
}

func randomToken(bytes: Int = 32) -> String {
    (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
}
