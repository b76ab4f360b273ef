import Foundation
import Logging
import ServiceLifecycle
import SignalboxModel
import SignalboxWebhooks

/// The webhook side of the server: the sending service (apart from pushes) and the purge of old lifecycle events.
/// - Throws: `ConfigurationError` when `webhooks.caFile` holds no readable PEM certificate (the start stops, naming it).
func webhookServices(
    _ configuration: WebhookConfiguration, store: any WebhookStore, secrets: SecretBox, logger: Logger, now: @escaping @Sendable () -> Date
) throws -> [any Service] {
    let signing = WebhookSecrets(box: secrets)
    let transport: HTTPWebhookTransport
    do {
        transport = try HTTPWebhookTransport.trusting(caFile: configuration.caFile)
    } catch {
        throw ConfigurationError("bad configuration value: webhooks.caFile: no PEM certificate could be read from \(configuration.caFile ?? "") (\(error))")
    }
    return [
        WebhookDispatcher(
            store: store, poster: WebhookPoster(transport: transport, timeout: configuration.requestTimeout, target: configuration.targetCheck, now: now),
            secrets: { try signing.signing($0, at: $1) }, configuration: configuration, logger: logger, now: now
        ),
        PeriodicWork(what: "lifecycle events past their retention", interval: .seconds(3600), logger: logger) {
            try await store.purgeLifecycleEvents(before: now() - configuration.eventRetention.seconds, limit: 10_000)
        },
    ]
}
