import APNsSimulator
import ArgumentParser
import Foundation
import Logging
import Metrics
import Prometheus
import SignalboxDashboard
import SignalboxAPNsHTTP2
import SignalboxServer

/// `signalbox serve`: the HTTP API, fan-out and delivery, on embedded SQLite.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run Signalbox: the registry, its HTTP API, fan-out and delivery to APNs, on embedded SQLite.",
        discussion: """
            Settings come from flags, then environment variables, then the --config file (YAML or JSON), then
            the defaults; the README lists every key with its variable and default. An unknown key or a bad
            value stops the start naming it. LOG_FORMAT=json writes one JSON object per log line.
            Without an admin or master key, both are generated into the data directory (mode 0600).
            A configured admin key needs at least 32 characters. With a TLS certificate and key the API is HTTPS only.
            Pushes go to Apple (sandbox or production per installation) unless --apns-simulator (a built-in
            simulator, local mode) or --apns-host/--apns-port/--apns-ca (any APNs double) say otherwise.
            """
    )

    @Option(help: "Configuration file, .yaml or .json (also SIGNALBOX_CONFIG).")
    var config: String?
    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?
    @Option(help: "Port (default 8080).")
    var port: Int?
    @Option(help: "Data directory (default ./signalbox-data).")
    var dataDir: String?
    @Option(help: "PostgreSQL URL (postgres://…); absent: the embedded SQLite in the data directory. A password in it shows in `ps`: give such a URL as SIGNALBOX_DATABASE_URL or in --config.")
    var database: String?
    @Option(help: "Default enumerator lease in seconds (default 600).")
    var leaseSeconds: Int?
    @Flag(help: "Local mode: send every push to a built-in APNs simulator instead of Apple.")
    var apnsSimulator = false
    @Option(help: "Port of the built-in simulator (its admin endpoint is the next port; default 2197).")
    var simulatorPort: Int?
    @Option(help: "Send every push to this APNs double instead of Apple.")
    var apnsHost: String?
    @Option(help: "Port of --apns-host (default 443).")
    var apnsPort: Int?
    @Option(help: "PEM certificate to trust for --apns-host.")
    var apnsCa: String?
    @Option(help: "PEM certificate chain: serve HTTPS only (with --tls-key).")
    var tlsCertificate: String?
    @Option(help: "PEM private key of --tls-certificate.")
    var tlsKey: String?

    func run() async throws {
        // Files are created for this user only; the data directory is made private on top of that.
        umask(0o077)
        let descriptors = DescriptorLimit.raiseToHard()
        let settings = try await loadSettings(environment: ProcessInfo.processInfo.environment)
        let configuration = settings.server
        if settings.logFormat == .json { LoggingSystem.bootstrap { JSONLogHandler(label: $0) } }
        var logger = Logger(label: "signalbox")
        logger.logLevel = settings.logLevel
        if descriptors.after > descriptors.before {
            logger.info("raised the open-file limit to the hard limit", metadata: ["descriptors.before": "\(descriptors.before)", "descriptors.limit": "\(descriptors.after)"])
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

        let apns = settings.apns
        let simulator = apns.simulator ? try await startSimulator(port: apns.simulatorPort, logger: logger) : nil
        var transportConfiguration = HTTP2Transport.Configuration()
        if let simulator {
            transportConfiguration = .singleEndpoint(host: "127.0.0.1", port: simulator.port, trustRoots: .pem(simulator.certificatePEM))
        } else if let apnsHost = apns.host {
            transportConfiguration = .singleEndpoint(host: apnsHost, port: apns.port, trustRoots: apns.ca.map { .pemFile($0) } ?? .system)
        }
        if simulator == nil, let proxy = apns.proxy {
            transportConfiguration.proxy = proxy
            logger.info("APNs is reached through an HTTP proxy", metadata: ["apns.proxy": "\(proxy)"])  // never the credentials
        }
        var transportLogger = Logger(label: "signalbox.apns")
        transportLogger.logLevel = logger.logLevel
        let transport = try HTTP2Transport(configuration: transportConfiguration, logger: transportLogger)
        let app = try await buildApplication(
            configuration: configuration, transport: transport, metrics: registry,
            onCredentialsLoaded: { key in simulator?.register(publicKey: key.publicKey, keyId: key.keyId, teamId: key.teamId) },
            extensions: [Dashboard()], logger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let simulator { group.addTask { try await simulator.run() } }
            var failure: (any Error)?
            do { try await app.runService() } catch { failure = error }
            try? await transport.shutdown()
            try? await simulator?.shutdown()
            try await group.waitForAll()
            if let failure { throw failure }
        }
    }

    /// Local mode: the simulator on `port`, its admin endpoint on the next port.
    private func startSimulator(port: Int, logger: Logger) async throws -> APNsSimulator {
        var configuration = APNsSimulator.Configuration()
        configuration.port = port
        configuration.adminPort = port + 1
        let simulator = try await APNsSimulator.start(configuration: configuration, logger: Logger(label: "signalbox.apns-simulator"))
        logger.notice("local mode: pushes go to the built-in APNs simulator", metadata: [
            "apns": "127.0.0.1:\(simulator.port)", "admin": "http://127.0.0.1:\(simulator.adminPort ?? 0)/pushes",
        ])
        return simulator
    }
}
