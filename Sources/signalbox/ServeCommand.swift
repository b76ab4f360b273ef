import ArgumentParser
import Foundation
import Logging
import Metrics
import Prometheus
import SignalboxServer

/// `signalbox serve`: the HTTP API with its embedded SQLite storage.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run Signalbox: the registry and its HTTP API, on embedded SQLite.",
        discussion: """
            Environment: SIGNALBOX_HOST, SIGNALBOX_PORT, SIGNALBOX_DATA_DIR, SIGNALBOX_ADMIN_KEY,
            SIGNALBOX_MASTER_KEY (base64 of 32 bytes), SIGNALBOX_LEASE_SECONDS, LOG_LEVEL. Options win.
            Without an admin or master key, both are generated into the data directory (mode 0600).
            """
    )

    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?
    @Option(help: "Port (default 8080).")
    var port: Int?
    @Option(help: "Data directory (default ./signalbox-data).")
    var dataDir: String?
    @Option(help: "Default enumerator lease in seconds (default 600).")
    var leaseSeconds: Int?

    func run() async throws {
        var configuration = ServerConfiguration()
        configuration.apply(environment: ProcessInfo.processInfo.environment)
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let dataDir { configuration.dataDirectory = dataDir }
        if let leaseSeconds { configuration.defaultLeaseSeconds = leaseSeconds }
        var logger = Logger(label: "signalbox")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let app = try await buildApplication(configuration: configuration, metrics: registry, logger: logger)
        try await app.runService()
    }
}
