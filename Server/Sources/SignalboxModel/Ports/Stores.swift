/// One value of every storage port, as the composition root hands them out: each component takes the one port
/// it needs. The backends build it (`SQLStores.ports` for SQLite and PostgreSQL).
public struct Stores: Sendable {
    public var registry: any RegistryStore
    public var delivery: any DeliveryStore
    public var deliveryLog: any DeliveryLogStore
    public var providerTokens: any SharedProviderTokens
    public var idempotency: any IdempotencyStore
    public var signingKeys: any SigningKeyStore
    public var webhooks: any WebhookStore
    public var reloads: any ReloadStore
    public var dashboardSessions: any DashboardSessionStore
    /// The other instances' changes, where instances share the storage (nil where one process owns it).
    public var changes: (any ChangeNotifier)?

    public init(
        registry: any RegistryStore, delivery: any DeliveryStore, deliveryLog: any DeliveryLogStore, providerTokens: any SharedProviderTokens,
        idempotency: any IdempotencyStore, signingKeys: any SigningKeyStore, webhooks: any WebhookStore, reloads: any ReloadStore,
        dashboardSessions: any DashboardSessionStore, changes: (any ChangeNotifier)?
    ) {
        self.registry = registry
        self.delivery = delivery
        self.deliveryLog = deliveryLog
        self.providerTokens = providerTokens
        self.idempotency = idempotency
        self.signingKeys = signingKeys
        self.webhooks = webhooks
        self.reloads = reloads
        self.dashboardSessions = dashboardSessions
        self.changes = changes
    }
}
