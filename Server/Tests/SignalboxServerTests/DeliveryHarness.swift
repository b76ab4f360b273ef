import APNsSimulator
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import SignalboxAPNsHTTP2
import SignalboxDashboard
import SignalboxServer
import Testing

/// The whole server (real HTTP, SQLite in a temporary data directory, fan-out and dispatcher services)
/// delivering over TLS + HTTP/2 to an in-process APNs simulator.
struct DeliveryHarness {
    let api: APIClient
    let simulator: APNsSimulator

    /// Runs `body` against a live server; `configure` adjusts server and simulator first.
    static func run(
        configure: (inout ServerConfiguration) -> Void = { _ in },
        simulator configureSimulator: (inout APNsSimulator.Configuration) -> Void = { _ in },
        _ body: @escaping @Sendable (DeliveryHarness) async throws -> Void
    ) async throws {
        var simulatorConfiguration = APNsSimulator.Configuration()
        configureSimulator(&simulatorConfiguration)
        let simulator = try await APNsSimulator.start(configuration: simulatorConfiguration, logger: Logger(label: "test.simulator"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-test-\(UUID().uuidString)").path
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.adminKey = Harness.adminKey
        configuration.delivery.retryBase = .milliseconds(20)
        configuration.delivery.retryCap = .milliseconds(200)
        configuration.boundOnlyAgainstHangs()
        configure(&configuration)
        var transportConfiguration = HTTP2Transport.Configuration.singleEndpoint(
            host: "127.0.0.1", port: simulator.port, trustRoots: .pem(simulator.certificatePEM)
        )
        transportConfiguration.boundOnlyAgainstHangs()
        let transport = try HTTP2Transport(configuration: transportConfiguration, logger: Logger(label: "test.transport"))
        let app = try await buildApplication(
            configuration: configuration, transport: transport,
            onCredentialsLoaded: { simulator.register(publicKey: $0.publicKey, keyId: $0.keyId, teamId: $0.teamId) }, extensions: [Dashboard()],
            logger: Logger(label: "test.server")
        )
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome: Result<Void, any Error>
        do {
            try await LiveServer.run(app) { server in try await body(DeliveryHarness(api: APIClient(client: server.sender), simulator: simulator)) }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? await transport.shutdown()
        try? await simulator.shutdown()
        try outcome.get()
    }

    /// Registers an installation with its controls (`kind`, `door`, `token`).
    func registerControls(_ app: TestApp, installation: String, user: String = "u1", channels: [String] = ["home:42"],
                          controls: [(kind: String, door: String, token: String)]) async throws {
        let base = "/v1/apps/\(app.id)/installations/\(installation)"
        let channelList = channels.map { "\"\($0)\"" }.joined(separator: ",")
        try await expectStatus(204, api.call(.put, base, key: app.serverKey, json: #"{"userId":"\#(user)","channels":[\#(channelList)],"environment":"sandbox"}"#))
        let list = controls.map { #"{"kind":"\#($0.kind)","configuration":{"door":"\#($0.door)"},"pushToken":"\#($0.token)"}"# }
        try await expectStatus(204, api.call(.put, base + "/controls", key: app.serverKey, json: #"{"controls":[\#(list.joined(separator: ","))]}"#))
    }

    /// Posts an event and returns its id.
    func post(_ app: TestApp, event json: String) async throws -> String {
        let reply = try await api.call(.post, "/v1/apps/\(app.id)/events", key: app.serverKey, json: json)
        #expect(reply.status == 202, "\(reply.body)")
        return try #require(reply.json?["eventId"] as? String)
    }

    /// Polls the event until it is `done` (or `timeout` passes) and returns its last status. The limit only ends a
    /// hang (a loaded run takes tens of seconds for what takes milliseconds alone); the caller's expectations fail.
    func waitUntilDone(_ app: TestApp, event: String, timeout: Duration = .seconds(120)) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let status = try #require(try await api.call(.get, "/v1/apps/\(app.id)/events/\(event)", key: app.serverKey).json)
            if status["state"] as? String == "done" || ContinuousClock.now > deadline { return status }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Polls `condition` until it gives a value. - Throws: when `timeout` passes first (a generous bound, not a window).
    @discardableResult
    func waitFor<T>(_ what: String, timeout: Duration = .seconds(120), _ condition: () async throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = try await condition() { return value }
            guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Tokens the simulator accepted, with how often.
    var acceptedTokens: [String: Int] { simulator.acceptedPushes.reduce(into: [:]) { $0[$1.token, default: 0] += 1 } }
}

func expectStatus(_ status: Int, _ reply: APIClient.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(reply.status == status, "\(reply.body)", sourceLocation: sourceLocation)
}

/// A condition a test waited on did not come within its (generous) limit.
struct WaitTimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

extension ServerConfiguration {
    /// Limits a loaded run (the parallel suite on two cores) meets only when something hangs. A request head can
    /// stall for seconds (the header limit has its own tests, `RequestTimeoutsTests`), and the first TLS handshake
    /// to APNs, and with it a direct push's first request, can take tens of seconds (docs/reliability.md; the request
    /// limit stays below the claim lease, as configuration requires).
    mutating func boundOnlyAgainstHangs() {
        connections.headerTimeout = .seconds(120)
        delivery.requestTimeout = .seconds(240)
        delivery.claimLease = .seconds(300)
    }
}

extension HTTP2Transport.Configuration {
    /// A local TLS handshake or a PING answer can take tens of seconds in a loaded run; a connection closed for a
    /// late PING would re-send its pushes, which the tests count as duplicates.
    mutating func boundOnlyAgainstHangs() {
        connectTimeout = .seconds(120)
        pingTimeout = .seconds(120)
    }
}
