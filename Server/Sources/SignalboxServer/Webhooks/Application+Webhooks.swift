import Foundation
import Logging
import ServiceLifecycle
import SignalboxModel
import SignalboxWebhooks

/// The webhook side of the server: the sending service (apart from pushes) and the purge of old lifecycle events.
func webhookServices(
    _ configuration: WebhookConfiguration, store: any WebhookStore, secrets: SecretBox, logger: Logger, now: @escaping @Sendable () -> Date
) -> [any Service] {
    let signing = WebhookSecrets(box: secrets)
    return [
        WebhookDispatcher(
            store: store, poster: WebhookPoster(transport: HTTPWebhookTransport.shared, timeout: configuration.requestTimeout, target: configuration.targetCheck, now: now),
            secrets: { try signing.signing($0, at: $1) }, configuration: configuration, logger: logger, now: now
        ),
        PeriodicWork(what: "lifecycle events past their retention", interval: .seconds(3600), logger: logger) {
            try await store.purgeLifecycleEvents(before: now() - configuration.eventRetention.seconds, limit: 10_000)
        },
    ]
}
