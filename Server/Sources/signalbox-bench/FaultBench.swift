import APNsSimulator
import ArgumentParser
import Crypto
import Foundation
import Logging
import SignalboxAPNs
import SignalboxAPNsHTTP2
import SignalboxServer

/// Delivery under APNs faults, counted per token: the whole server (HTTP API, SQLite, fan-out, dispatcher,
/// HTTP/2 transport) against the simulator injecting one kind of fault, both in this process.
struct FaultBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faults",
        abstract: "Deliver one event under injected APNs faults and count what each token received.",
        discussion: """
            Scenarios:
              goaway            GOAWAY(last = previous stream) then close, at --rate (default 1 %, 20,000 tokens)
              goaway-graceful   the same, the server reading on for a second before it closes
              transient         500, 503 and 429 answers, each at --rate / 3 (default 5 % in all, 2,000 tokens)
              shared-key        two apps on one team key, 5 one-token events each interleaved, then --count tokens
              bad-header        16 senders of valid pushes and one sending a collapse id with CR LF, for --seconds
            Prints lost (tokens never accepted) and extra (accepted more than once) beside the event's counters.
            """
    )

    @Option(help: "goaway, goaway-graceful, transient, shared-key or bad-header.") var scenario: String
    @Option(help: "Control tokens in the event (default per scenario).") var count: Int?
    @Option(help: "Share of requests that meet the fault (default per scenario).") var rate: Double?
    @Option(help: "Seconds the bad-header scenario runs.") var seconds = 15
    @Option(help: "Port of the server.") var port = 29080
    @Option(help: "Write the figures as JSON here.") var json = "bench-faults.json"

    func run() async throws {
        var logger = Logger(label: "signalbox.bench")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
        var simulatorConfiguration = APNsSimulator.Configuration()
        let figures: [(String, Double, String)]
        switch scenario {
        case "goaway", "goaway-graceful":
            let fault = APNsSimulator.Fault.goAway(graceful: scenario == "goaway-graceful")
            simulatorConfiguration.faults = .init(rates: [(fault, rate ?? 0.01)], seed: 17)
            figures = try await deliver(simulatorConfiguration, apps: 1, tokens: count ?? 20_000, logger: logger)
        case "transient":
            let each = (rate ?? 0.05) / 3
            simulatorConfiguration.faults = .init(rates: [
                (.status(500, reason: "InternalServerError"), each), (.status(503, reason: "ServiceUnavailable"), each),
                (.status(429, reason: "TooManyRequests"), each),
            ], seed: 17)
            figures = try await deliver(simulatorConfiguration, apps: 1, tokens: count ?? 2_000, logger: logger)
        case "shared-key":
            figures = try await deliver(simulatorConfiguration, apps: 2, tokens: count ?? 10_000, logger: logger)
        case "bad-header":
            figures = try await badHeader(logger: logger)
        default:
            throw ValidationError("unknown scenario \(scenario)")
        }
        try BenchReport(figures: [("faults.\(scenario).tokens", Double(count ?? 0), "tokens")].filter { _ in count != nil } + figures)
            .write(jsonPath: json)
    }

    /// Registers `tokens` control tokens for the first app (and, with two apps on one key, interleaves one-token
    /// events of both first), posts one event to all of them and counts what the simulator accepted per token.
    private func deliver(
        _ simulatorConfiguration: APNsSimulator.Configuration, apps appCount: Int, tokens: Int, logger: Logger
    ) async throws -> [(String, Double, String)] {
        let simulator = try await APNsSimulator.start(configuration: simulatorConfiguration, logger: logger)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalbox-faults-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.dataDirectory = directory
        configuration.adminKey = "sba_bench-admin-key-of-32-characters"
        let transport = try HTTP2Transport(
            configuration: .singleEndpoint(host: "127.0.0.1", port: simulator.port, trustRoots: .pem(simulator.certificatePEM)), logger: logger
        )
        let app = try await buildApplication(
            configuration: configuration, transport: transport,
            onCredentialsLoaded: { simulator.register(publicKey: $0.publicKey, keyId: $0.keyId, teamId: $0.teamId) }, logger: logger
        )
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        let api = BenchHTTP(base: "http://127.0.0.1:\(port)")
        while (try? await api.call("GET", "/healthz")) == nil { try await Task.sleep(for: .milliseconds(50)) }

        let pem = String(decoding: try JSONEncoder().encode(P256.Signing.PrivateKey().pemRepresentation), as: UTF8.self)
        var apps: [(id: String, key: String)] = []
        for index in 0..<appCount {
            let created = try await api.call("POST", "/v1/apps", key: configuration.adminKey, json: """
                {"bundleId":"com.example.bench\(index)","teamId":"BENCHTEAM1","keyId":"BENCHKEY01","environment":"sandbox","privateKey":\(pem)}
                """)
            apps.append((try created["appId"] as? String ?? { throw ValidationError("app not created: \(created)") }(), created["serverKey"] as? String ?? ""))
        }
        let event = #"{"target":{"controls":{"kinds":["door"]}},"audience":{"all":true}}"#
        var small: [(app: (id: String, key: String), event: String)] = []
        if appCount > 1 {
            // One token per app and round, each with its own event, interleaved between the apps.
            for round in 0..<5 {
                for (index, app) in apps.enumerated() {
                    let token = tokens + round * appCount + index
                    try await BenchRegistrations.register(api: api, appId: app.id, serverKey: app.key, indices: token..<(token + 1), concurrency: 1)
                    let own = #"{"target":{"controls":{"kinds":["door"]}},"audience":{"installations":["\#(BenchRegistrations.installationId(token))"]}}"#
                    let posted = try await api.call("POST", "/v1/apps/\(app.id)/events", key: app.key, json: own)
                    small.append((app, posted["eventId"] as? String ?? ""))
                }
            }
        }
        let registered = ContinuousClock.now
        try await BenchRegistrations.register(api: api, appId: apps[0].id, serverKey: apps[0].key, indices: 0..<tokens, concurrency: 32)
        let registrationSeconds = (ContinuousClock.now - registered).seconds
        for (app, eventId) in small { _ = try await waitUntilDone(api, app: app, event: eventId) }

        let posted = ContinuousClock.now
        let eventId = try await api.call("POST", "/v1/apps/\(apps[0].id)/events", key: apps[0].key, json: event)["eventId"] as? String ?? ""
        let status = try await waitUntilDone(api, app: apps[0], event: eventId)
        let doneSeconds = (ContinuousClock.now - posted).seconds

        let received = simulator.acceptedPushes.reduce(into: [String: Int]()) { $0[$1.token, default: 0] += 1 }
        // Each token is owed one push per event that names it: the big event reaches every token of the first app,
        // so the first app's one-token events' tokens are owed two.
        let owed = (0..<(tokens + (appCount > 1 ? 5 * appCount : 0))).map { index in
            (token: BenchRegistrations.token(index), pushes: index >= tokens && (index - tokens) % appCount == 0 ? 2 : 1)
        }
        let lost = owed.filter { (received[$0.token] ?? 0) < $0.pushes }.count
        let extra = owed.reduce(0) { $0 + max(0, (received[$1.token] ?? 0) - $1.pushes) }
        let stats = simulator.stats
        let moved = transport.movedAfterRefusal, resent = transport.resentAfterLostAnswer
        server.cancel()
        _ = await server.result
        try? await transport.shutdown()
        try? await simulator.shutdown()
        return [
            ("faults.registration_seconds", registrationSeconds, "s"),
            ("faults.event_done_seconds", doneSeconds, "s"),
            ("faults.event_delivered", Double(status["delivered"] as? Int ?? -1), "pushes"),
            ("faults.event_failed", Double(status["failed"] as? Int ?? -1), "pushes"),
            ("faults.tokens_lost", Double(lost), "tokens"),
            ("faults.extra_accepted", Double(extra), "pushes"),
            ("faults.goaways_sent", Double(stats.goAwaysSent), "frames"),
            ("faults.connections_accepted", Double(stats.connectionsAccepted), "connections"),
            ("faults.requests_refused", Double(stats.rejected.values.reduce(0, +)), "answers"),
            ("faults.too_many_provider_token_updates", Double(stats.rejected["TooManyProviderTokenUpdates"] ?? 0), "answers"),
            ("faults.moved_after_refusal", Double(moved), "pushes"),
            ("faults.resent_after_lost_answer", Double(resent), "pushes"),
        ]
    }

    private func waitUntilDone(_ api: BenchHTTP, app: (id: String, key: String), event: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(600)
        while true {
            let status = try await api.call("GET", "/v1/apps/\(app.id)/events/\(event)", key: app.key)
            if status["state"] as? String == "done" || ContinuousClock.now > deadline { return status }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// 16 senders of valid pushes and one of pushes with `apns-collapse-id: a\r\nb`, all on one key's connections.
    private func badHeader(logger: Logger) async throws -> [(String, Double, String)] {
        let simulator = try await APNsSimulator.start(logger: logger)
        let key = SigningKey(privateKey: P256.Signing.PrivateKey(), keyId: "BENCHKEY01", teamId: "BENCHTEAM1")
        simulator.register(publicKey: key.publicKey, keyId: key.keyId, teamId: key.teamId)
        let transport = try HTTP2Transport(
            configuration: .singleEndpoint(host: "127.0.0.1", port: simulator.port, trustRoots: .pem(simulator.certificatePEM)), logger: logger
        )
        let client = APNsClient(transport: transport, timeout: .seconds(10))
        let tokens = ProviderTokenManager(key: key)
        let end = ContinuousClock.now + .seconds(seconds)
        let counts = try await withThrowingTaskGroup(of: (valid: Int, lost: Int, bad: Int, badRefused: Int).self) { group in
            for sender in 0..<17 {
                group.addTask {
                    var tally = (valid: 0, lost: 0, bad: 0, badRefused: 0)
                    var index = 0
                    while ContinuousClock.now < end {
                        index += 1
                        var push = try Push(deviceToken: DeviceToken(hex: String(format: "%04x%08x", sender, index)), pushType: .controls, bundleId: "com.example.bench")
                        if sender == 16 { push.collapseId = "a\r\nb" }  // past `Push.init`'s check, as a buggy caller could
                        do {
                            _ = try await client.send(push, environment: .sandbox, tokens: tokens)
                            if sender == 16 { tally.bad += 1 } else { tally.valid += 1 }
                        } catch let error as APNsTransportError {
                            if sender == 16 { tally.badRefused += error.code == .invalidRequest ? 1 : 0 } else { tally.lost += 1 }
                        }
                    }
                    return tally
                }
            }
            return try await group.reduce(into: (valid: 0, lost: 0, bad: 0, badRefused: 0)) {
                $0 = ($0.valid + $1.valid, $0.lost + $1.lost, $0.bad + $1.bad, $0.badRefused + $1.badRefused)
            }
        }
        let stats = simulator.stats
        try? await transport.shutdown()
        try? await simulator.shutdown()
        return [
            ("faults.valid_delivered", Double(counts.valid), "pushes"),
            ("faults.valid_failed", Double(counts.lost), "pushes"),
            ("faults.bad_refused_locally", Double(counts.badRefused), "pushes"),
            ("faults.bad_sent", Double(counts.bad), "pushes"),
            ("faults.connections_accepted", Double(stats.connectionsAccepted), "connections"),
        ]
    }
}
