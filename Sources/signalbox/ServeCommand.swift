import APNsSimulator
import ArgumentParser
import Foundation
import Logging
import Metrics
import Prometheus
import SignalboxAPNsHTTP2
import SignalboxServer

/// `signalbox serve`: the HTTP API, fan-out and delivery, on embedded SQLite or a shared PostgreSQL.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run Signalbox: the registry, its HTTP API, fan-out and delivery to APNs, on embedded SQLite or PostgreSQL.",
        discussion: """
            Environment: SIGNALBOX_HOST, SIGNALBOX_PORT, SIGNALBOX_DATA_DIR, SIGNALBOX_DATABASE_URL,
            SIGNALBOX_CLAIM_LEASE_SECONDS (120), SIGNALBOX_ADMIN_KEY,
            SIGNALBOX_MASTER_KEY (base64 of 32 bytes), SIGNALBOX_LEASE_SECONDS, SIGNALBOX_MAX_IN_FLIGHT,
            SIGNALBOX_MAX_INSTALLATIONS_PER_USER (20), SIGNALBOX_MAX_ENUMERATORS_PER_INSTALLATION (256),
            SIGNALBOX_RETRY_BASE_MS, SIGNALBOX_RETRY_CAP_MS, SIGNALBOX_APNS_PAUSE_MS,
            SIGNALBOX_APNS_SIMULATOR=1, SIGNALBOX_TLS_CERTIFICATE, SIGNALBOX_TLS_KEY, SIGNALBOX_HEADER_TIMEOUT (10),
            SIGNALBOX_BODY_TIMEOUT (30), SIGNALBOX_IDLE_TIMEOUT (60; seconds), SIGNALBOX_MAX_CONNECTIONS
            (default: the file-descriptor limit less a reserve), LOG_LEVEL.
            Options win. Without an admin or master key, both are generated into the data directory (mode 0600).
            A configured admin key needs at least 32 characters. With a TLS certificate and key the API is HTTPS only.
            Pushes go to Apple (sandbox or production per installation) unless --apns-simulator (a built-in
            simulator, local mode) or --apns-host/--apns-port/--apns-ca (any APNs double) say otherwise.
            """
    )

    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?
    @Option(help: "Port (default 8080).")
    var port: Int?
    @Option(help: "Data directory (default ./signalbox-data).")
    var dataDir: String?
    @Option(help: "PostgreSQL URL (postgres://user:password@host:5432/database) shared by several instances; default: SQLite in the data directory.")
    var database: String?
    @Option(help: "Default enumerator lease in seconds (default 600).")
    var leaseSeconds: Int?
    @Flag(help: "Local mode: send every push to a built-in APNs simulator instead of Apple.")
    var apnsSimulator = false
    @Option(help: "Port of the built-in simulator (its admin endpoint is the next port).")
    var simulatorPort = 2197
    @Option(help: "Send every push to this APNs double instead of Apple.")
    var apnsHost: String?
    @Option(help: "Port of --apns-host.")
    var apnsPort = 443
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
        var configuration = ServerConfiguration()
        let environment = ProcessInfo.processInfo.environment
        configuration.apply(environment: environment)
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let dataDir { configuration.dataDirectory = dataDir }
        if let database { configuration.databaseURL = database }
        if let leaseSeconds { configuration.defaultLeaseSeconds = leaseSeconds }
        if tlsCertificate != nil || tlsKey != nil {
            configuration.tls = TLSFiles(
                certificate: tlsCertificate ?? configuration.tls?.certificate ?? "", key: tlsKey ?? configuration.tls?.key ?? ""
            )
        }
        var logger = Logger(label: "signalbox")
        logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        if descriptors.after > descriptors.before {
            logger.info("raised the open-file limit to the hard limit", metadata: ["descriptors.before": "\(descriptors.before)", "descriptors.limit": "\(descriptors.after)"])
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

        let localMode = apnsSimulator || environment["SIGNALBOX_APNS_SIMULATOR"] == "1"
        let simulator = localMode ? try await startSimulator(logger: logger) : nil
        var transportConfiguration = HTTP2Transport.Configuration()
        if let simulator {
            transportConfiguration = .singleEndpoint(host: "127.0.0.1", port: simulator.port, trustRoots: .pem(simulator.certificatePEM))
        } else if let apnsHost {
            transportConfiguration = .singleEndpoint(host: apnsHost, port: apnsPort, trustRoots: apnsCa.map { .pemFile($0) } ?? .system)
        }
        var transportLogger = Logger(label: "signalbox.apns")
        transportLogger.logLevel = logger.logLevel
        let transport = try HTTP2Transport(configuration: transportConfiguration, logger: transportLogger)
        let app = try await buildApplication(
            configuration: configuration, transport: transport, metrics: registry,
            onCredentialsLoaded: { key in simulator?.register(publicKey: key.publicKey, keyId: key.keyId, teamId: key.teamId) },
            logger: logger
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

    /// Local mode: the simulator on `--simulator-port`, its admin endpoint on the next port.
    private func startSimulator(logger: Logger) async throws -> APNsSimulator {
        var configuration = APNsSimulator.Configuration()
        configuration.port = simulatorPort
        configuration.adminPort = simulatorPort + 1
        let simulator = try await APNsSimulator.start(configuration: configuration, logger: Logger(label: "signalbox.apns-simulator"))
        logger.notice("local mode: pushes go to the built-in APNs simulator", metadata: [
            "apns": "127.0.0.1:\(simulator.port)", "admin": "http://127.0.0.1:\(simulator.adminPort ?? 0)/pushes",
        ])
        return simulator
    }
}
