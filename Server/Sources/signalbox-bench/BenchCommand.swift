import ArgumentParser
import Crypto
import Foundation
import Logging
import SignalboxAPNs
import SignalboxAPNsHTTP2
import SignalboxServer

/// `signalbox-bench`: the lab's benchmarks and fault injection, which print figures (`name=value unit`) and write
/// them as JSON. Not part of the shipped `signalbox`: it is no product of the package, and the benches that need a
/// server or the APNs simulator start the `signalbox` built beside it.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signalbox-bench",
        abstract: "Run a benchmark of Signalbox and print its figures.",
        discussion: "Build it beside the server: swift build -c release --package-path Server (builds both).",
        subcommands: [TransportBench.self, FanOutBench.self, FaultBench.self, NoisyNeighbourBench.self]
    )
}

/// Sends N pushes to distinct tokens through the HTTP/2 transport and reports pushes per second.
struct TransportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transport",
        abstract: "Push N controls pushes through the HTTP/2 transport to an APNs double.",
        discussion: """
            Without --host, starts `signalbox simulate-apns` (the binary beside this one) as a separate process on --port.
            With --host/--port/--ca, targets any double that accepts any provider token (the nginx one of
            scripts/bench/nginx-apns-double does); the bench signs with a key it generates (BENCHKEY01, BENCHTEAM1).
            """
    )

    @Option(help: "Pushes to send.") var count = 100_000
    @Option(help: "Pushes in flight at once.") var concurrency = 2_000
    @Option(help: "Most connections the transport may open.") var connections = 4
    @Option(help: "Most concurrent streams per connection (the server's SETTINGS may lower it).") var streams = 1000
    @Option(help: "Host of an already running double (default: start the simulator).") var host: String?
    @Option(help: "Port of the double (or of the simulator started).") var port = 22197
    @Option(help: "PEM certificate the double presents.") var ca: String?
    @Option(help: "Write the figures as JSON here.") var json: String = "bench-transport.json"

    func run() async throws {
        let key = SigningKey(privateKey: P256.Signing.PrivateKey(), keyId: "BENCHKEY01", teamId: "BENCHTEAM1")
        var simulator: Process?
        var trust = ca
        if host == nil {
            let started = try BenchSimulator.start(port: port, key: key)
            simulator = started.process
            trust = started.caPath
        }
        defer { simulator?.terminate() }
        guard let trust else { throw ValidationError("--ca is required with --host") }
        var configuration = HTTP2Transport.Configuration.singleEndpoint(
            host: host ?? "127.0.0.1", port: port, trustRoots: .pemFile(trust)
        )
        configuration.maxConnectionsPerLane = connections
        configuration.maxConcurrentStreamsPerConnection = streams
        var logger = Logger(label: "signalbox.bench")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        let transport = try HTTP2Transport(configuration: configuration, logger: logger)
        let client = APNsClient(transport: transport, timeout: .seconds(60))
        let tokens = ProviderTokenManager(key: key)
        let pushes = try (0..<count).map { index in
            try Push(deviceToken: DeviceToken(hex: String(format: "%064x", index + 1)), pushType: .controls, bundleId: "com.example.bench")
        }
        // Warm up: one connection, its first request answered alone.
        _ = try await client.send(pushes[0], environment: .sandbox, tokens: tokens)
        let next = Counter()
        let cpuBefore = ProcFS.cpuSeconds(pid: getpid())
        let started = ContinuousClock.now
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for sender in 0..<min(concurrency, count) {
                group.addTask(executorPreference: transport.senderExecutor(for: sender)) {
                    var failures = 0
                    while let index = next.take(below: pushes.count) {
                        let result = try await client.send(pushes[index], environment: .sandbox, tokens: tokens)
                        if result.outcome != .delivered { failures += 1 }
                    }
                    return failures
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = ContinuousClock.now - started
        let seconds = elapsed.seconds
        let cpuSeconds = ProcFS.cpuSeconds(pid: getpid()) - cpuBefore
        let figures: [(String, Double, String)] = [
            ("transport.pushes", Double(count), "pushes"),
            ("transport.failed", Double(failures), "pushes"),
            ("transport.seconds", seconds, "s"),
            ("transport.pushes_per_second", Double(count) / seconds, "pushes/s"),
            ("transport.cpu_us_per_push", cpuSeconds * 1e6 / Double(count), "µs"),
            ("transport.connections", Double(transport.connectionsOpened), "connections"),
            ("transport.concurrency", Double(concurrency), "streams"),
        ]
        try BenchReport(figures: figures).write(jsonPath: json)
        try await transport.shutdown()
    }
}
