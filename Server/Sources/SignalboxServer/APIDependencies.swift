import Foundation
import Hummingbird
import Logging
import Prometheus
import SignalboxAPNs
import SignalboxDelivery
import SignalboxModel

/// What the routes need: storage, secrets, auth, configuration, the clock, the metrics registry, and the
/// delivery side (signals to the services, the APNs sender when a transport is configured).
public struct APIDependencies: Sendable {
    public let configuration: ServerConfiguration
    /// The storage ports; each route uses the one it needs.
    public let stores: Stores
    public let secrets: SecretBox
    public let signals: DeliverySignals
    /// Where accepted events enter the delivery engine.
    let intake: EventIntake
    let sender: PushSender?
    /// The sender's cache of unsealed app keys (forgotten when an app's key changes).
    let credentials: AppCredentials
    /// App records, cached for authentication and for routes that need the app.
    package let apps: AppCache
    public let metrics: PrometheusCollectorRegistry
    public let now: @Sendable () -> Date
    package let auth: Authenticator

    public init(
        configuration: ServerConfiguration, stores: Stores, adminKey: String,
        secrets: SecretBox, metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), transport: (any APNsTransport)? = nil,
        onCredentialsLoaded: @escaping @Sendable (SigningKey) -> Void = { _ in }, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.stores = stores
        self.secrets = secrets
        let signals = DeliverySignals()
        self.signals = signals
        intake = EventIntake(delivery: stores.delivery, idempotency: stores.idempotency, signals: signals)
        let credentials = AppCredentials(
            registry: stores.registry, signingKeys: stores.signingKeys, providerTokens: stores.providerTokens, secrets: secrets, now: now,
            onLoad: onCredentialsLoaded
        )
        self.credentials = credentials
        sender = transport.map { transport in
            PushSender(
                client: APNsClient(
                    transport: transport, timeout: configuration.delivery.requestTimeout, circuitBreaker: configuration.delivery.circuitBreaker
                ),
                credentialsAtHand: { credentials.cachedEntry(appId: $0) },
                credentials: { try await credentials.entry(appId: $0) }
            )
        }
        self.metrics = metrics
        self.now = now
        apps = AppCache(store: stores.registry)
        auth = Authenticator(adminKey: adminKey, metricsKey: configuration.metricsKey, apps: apps, secrets: secrets, now: now)
    }
}

/// Routes another module serves beside the API (the dashboard's pages), handed in by the composition root.
public protocol RouterExtension: Sendable {
    func add(to router: Router<BasicRequestContext>, dependencies: APIDependencies)
}

/// The API's router: every route, JSON errors, request metrics by route template; then `extensions`' routes.
public func buildRouter(_ dependencies: APIDependencies, extensions: [any RouterExtension] = []) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.middlewares.add(MetricsMiddleware())
    router.middlewares.add(NoStoreMiddleware())
    router.middlewares.add(ErrorMiddleware())
    router.middlewares.add(MethodNotAllowedMiddleware())
    HealthRoutes(dependencies: dependencies).add(to: router)
    AppRoutes(dependencies: dependencies).add(to: router)
    InstallationRoutes(dependencies: dependencies).add(to: router)
    EventRoutes(dependencies: dependencies).add(to: router)
    OpenAPIRoute.add(to: router)
    InspectionRoutes(dependencies: dependencies).add(to: router)
    WebhookRoutes(dependencies: dependencies).add(to: router)
    for routes in extensions { routes.add(to: router, dependencies: dependencies) }
    return router
}
