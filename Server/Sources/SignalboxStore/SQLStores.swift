import SignalboxModel

/// Every storage port in SQL, each store over one shared database client (SQLite or PostgreSQL). Open it with
/// `sqlite(path:logger:deliveryLog:)` or `postgres(url:logger:claimLease:…)`, hand `ports` to the components, and
/// `close()` it once they are done.
///
/// ```swift
/// let stores = try await SQLStores.sqlite(path: "data/signalbox.sqlite", logger: logger)
/// let app = try await stores.ports.registry.app(id: "weather")
/// try await stores.close()
/// ```
public struct SQLStores: Sendable {
    let database: SQLDatabaseClient
    let registry: SQLRegistry
    let delivery: SQLDelivery
    let deliveryLog: SQLDeliveryLog
    let providerTokens: SQLProviderTokens
    let idempotency: SQLIdempotency
    let signingKeys: SQLSigningKeys
    let webhooks: SQLWebhooks
    let reloads: SQLReloads
    let dashboardSessions: SQLDashboardSessions
    let changes: SQLChanges

    /// - Parameter deliveryLog: whether push answers are written to the delivery log.
    init(database: SQLDatabaseClient, deliveryLog: Bool) {
        self.database = database
        registry = SQLRegistry(database: database)
        delivery = SQLDelivery(database: database, writesDeliveryLog: deliveryLog)
        self.deliveryLog = SQLDeliveryLog(database: database, writes: deliveryLog)
        providerTokens = SQLProviderTokens(database: database)
        idempotency = SQLIdempotency(database: database)
        signingKeys = SQLSigningKeys(database: database)
        webhooks = SQLWebhooks(database: database)
        reloads = SQLReloads(database: database)
        dashboardSessions = SQLDashboardSessions(database: database)
        changes = SQLChanges(database: database)
    }

    /// Which database the stores run on.
    var backend: SQLBackend { database.backend }

    /// The stores as ports. `changes` only where other instances share the database (PostgreSQL).
    public var ports: Stores {
        Stores(
            registry: registry, delivery: delivery, deliveryLog: deliveryLog, providerTokens: providerTokens, idempotency: idempotency,
            signingKeys: signingKeys, webhooks: webhooks, reloads: reloads, dashboardSessions: dashboardSessions,
            changes: backend == .postgres ? changes : nil
        )
    }

    /// Closes the connections once running work is done; call it before the stores go away.
    public func close() async throws {
        try await database.close()
    }
}
