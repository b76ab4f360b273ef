import Foundation
import Hummingbird
import Logging
import Prometheus
import SignalboxStore

/// What the routes need: storage, secrets, auth, configuration, the clock and the metrics registry.
public struct APIDependencies: Sendable {
    public let configuration: ServerConfiguration
    public let store: any RegistryStore
    public let secrets: SecretBox
    public let metrics: PrometheusCollectorRegistry
    public let now: @Sendable () -> Date
    let auth: Authenticator

    public init(
        configuration: ServerConfiguration, store: any RegistryStore, adminKey: String, secrets: SecretBox,
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.store = store
        self.secrets = secrets
        self.metrics = metrics
        self.now = now
        auth = Authenticator(adminKey: adminKey, store: store, secrets: secrets, now: now)
    }
}

/// The API's router: every route, JSON errors, request metrics by route template.
public func buildRouter(_ dependencies: APIDependencies) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.middlewares.add(MetricsMiddleware())
    router.middlewares.add(ErrorMiddleware())
    HealthRoutes(dependencies: dependencies).add(to: router)
    AppRoutes(dependencies: dependencies).add(to: router)
    InstallationRoutes(dependencies: dependencies).add(to: router)
    return router
}
