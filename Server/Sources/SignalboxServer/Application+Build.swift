import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle
import SignalboxAPNs
import SignalboxDelivery
import SignalboxModel
import SignalboxStore

/// Builds the whole server from configuration: data directory, keys, storage, routes, background services.
/// Events are fanned out and delivered through `transport` (the HTTP/2 transport to APNs or a simulator);
/// `extensions` add routes beside the API (the `signalbox` binary adds the dashboard).
///
/// ```swift
/// let app = try await buildApplication(configuration: ServerConfiguration(), transport: transport, logger: logger)
/// try await app.runService()
/// ```
public func buildApplication(
    configuration: ServerConfiguration, transport: any APNsTransport, metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
    onCredentialsLoaded: @escaping @Sendable (SigningKey) -> Void = { _ in }, extensions: [any RouterExtension] = [], logger: Logger
) async throws -> some ApplicationProtocol {
    // Everything that can refuse the start is checked before the store is opened.
    let tls = try configuration.tls.map { try $0.serverConfiguration() }
    let directory = try DataDirectory(path: configuration.dataDirectory)
    let adminKey = try directory.adminKey(configured: configuration.adminKey, logger: logger)
    if configuration.adminKey == nil {
        logger.notice("admin key (Bearer for /v1/apps) is in the data directory", metadata: ["path": "\(directory.adminKeyPath)"])
    }
    let secrets = try SecretBox(masterKey: directory.masterKey(configured: configuration.masterKey, logger: logger))
    let writesLog = configuration.deliveryLog.maxLinesPerApp > 0
    let sqlStores = if let url = configuration.database {
        try await SQLStores.postgres(url: url, logger: logger, claimLease: configuration.delivery.claimLease, deliveryLog: writesLog)
    } else {
        try await SQLStores.sqlite(path: directory.databasePath, logger: logger, deliveryLog: writesLog)
    }
    let stores = sqlStores.ports
    // Instances on one database compare each other's leases and token issue times: they all read its clock.
    let clock = SharedClock()
    do {
        try directory.restrictFiles()  // SQLite's -wal and -shm, now that they exist
        try await synchronize(clock, with: stores.delivery, logger: logger)
    } catch {
        try? await sqlStores.close()
        throw error
    }
    try await resealLegacySecrets(store: stores.registry, secrets: secrets, logger: logger)
    let dependencies = APIDependencies(
        configuration: configuration, stores: stores, adminKey: adminKey, secrets: secrets,
        metrics: metrics, transport: transport, onCredentialsLoaded: onCredentialsLoaded, now: clock.now
    )
    var services: [any Service] = [
        StoreService(stores: sqlStores),
        // Expired leases are already ignored when reading; this only keeps the table small.
        PeriodicWork(what: "expired enumerator leases", interval: configuration.leaseCleanupInterval, logger: logger) { [now = dependencies.now] in
            try await stores.registry.deleteExpiredEnumerators(now: now())
        },
        PeriodicWork(
            what: "events past their retention", interval: configuration.delivery.eventPurgeInterval, logger: logger,
            work: EventRetention(store: stores.delivery, retention: configuration.delivery.eventRetention, now: dependencies.now).purge
        ),
        // Instances on one database replace each key's provider token together (`apns.md` §3.4).
        PeriodicWork(what: "shared provider tokens", interval: .seconds(60), logger: logger) { [credentials = dependencies.credentials] in
            try await credentials.shareDueTokens()
            return 0
        },
        PeriodicWork(what: "delivery log lines past their retention or count", interval: configuration.deliveryLog.pruneInterval, logger: logger) {
            [now = dependencies.now, log = configuration.deliveryLog] in
            try await stores.deliveryLog.pruneDeliveryLog(before: now() - log.retention.seconds, keepPerApp: log.maxLinesPerApp)
        },
        PeriodicWork(what: "idempotency keys past their 24 hours", interval: .seconds(300), logger: logger) { [now = dependencies.now] in
            try await stores.idempotency.pruneIdempotencyKeys(before: now() - IdempotentRequest.window.seconds)
        },
        FanOutService(store: stores.delivery, signals: dependencies.signals, configuration: configuration.delivery, logger: logger, now: dependencies.now),
    ]
    services.append(PeriodicWork(what: "planning statistics of bulk-loaded registrations", interval: .seconds(60), logger: logger) {
        try await stores.delivery.refreshPlanningStatistics()
        return 0
    })
    if let changes = stores.changes {
        services.append(ChangeListener(notifier: changes, signals: dependencies.signals, logger: logger))
        services.append(PeriodicWork(what: "the database clock's offset", interval: .seconds(60), logger: logger) {
            try await synchronize(clock, with: stores.delivery, logger: logger)
            return 0
        })
    }
    if let sender = dependencies.sender {
        // Each app has its own connections (`APNsLane`): open them before the first push needs them.
        services.append(PeriodicWork(what: "apps' APNs connections", interval: .seconds(60), logger: logger, work: dependencies.prepareConnections))
        services.append(Dispatcher(
            store: stores.delivery, sender: sender, signals: dependencies.signals, configuration: configuration.delivery, logger: logger,
            lifecycle: stores.webhooks, now: dependencies.now
        ))
    }
    services += try webhookServices(configuration.webhooks, store: stores.webhooks, secrets: secrets, logger: logger, now: dependencies.now)
    if tls == nil, !isLoopback(configuration.host) {
        logger.warning(
            "serving plain HTTP on a non-loopback address: keys and secrets cross the network in clear; put a TLS reverse proxy (nginx, caddy) in front or pass --tls-certificate and --tls-key",
            metadata: ["host": "\(configuration.host)"]
        )
    }
    let descriptors = DescriptorLimit.current
    let limit = ConnectionLimit(maximum: configuration.connections.connectionCap(descriptorLimit: descriptors))
    logger.info("connection limits", metadata: [
        "connections.max": "\(limit.maximum)", "descriptors.limit": "\(descriptors)", "tls": "\(tls != nil)",
    ])
    return Application(
        router: buildRouter(dependencies, extensions: extensions),
        server: .signalbox(connections: configuration.connections, limit: limit, tls: tls, logger: logger),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "signalbox"),
        services: services,
        onServerRunning: { channel in
            logger.notice("Signalbox listening", metadata: ["address": "\(channel.localAddress?.description ?? "?")"])
        },
        logger: logger
    )
}

/// Keeps the stores' database open while the server runs and closes it at shutdown.
struct StoreService: Service {
    let stores: SQLStores

    func run() async throws {
        try? await gracefulShutdown()
        try await stores.close()
    }
}

/// Sets `clock` to the database's time when the database is shared (PostgreSQL).
private func synchronize(_ clock: SharedClock, with store: any DeliveryStore, logger: Logger) async throws {
    guard let roundTrip = try await clock.synchronize(read: store.sharedTime) else { return }
    let offset = clock.offsetSeconds
    let level: Logger.Level = abs(offset) > 1 ? .warning : .debug
    logger.log(level: level, "this machine's clock differs from the database's; the database's is used", metadata: [
        "offsetMs": "\(Int((offset * 1000).rounded()))", "roundTripMs": "\(Int((roundTrip.seconds * 1000).rounded()))",
    ])
}
