import Foundation
import SignalboxAPI
import SignalboxModel
import SignalboxWebhooks

/// What the webhook routes do, shared by the API and the dashboard's webhooks page (the callers authorize first).
extension APIDependencies {
    /// Endpoints per app at most (each lifecycle event is queued once per endpoint).
    static let maxWebhookEndpoints = 10
    static let webhookOverlapLimits = 0...(30 * 86_400)

    private var webhookSecrets: WebhookSecrets { WebhookSecrets(box: secrets) }

    /// The app's endpoints with their status (no secrets).
    package func webhookEndpoints(appId: String) async throws -> [WebhookEndpointResponse] {
        try await stores.webhooks.webhookEndpoints(appId: appId).map(WebhookEndpointResponse.init)
    }

    /// A new endpoint for `url`, its secret shown in the answer (and never again).
    /// - Throws: 400 for a bad URL or event type, 422 `webhook_target_not_public` for a URL whose host is or resolves
    ///   to a non-public address (unless `webhooks.allowPrivateTargets`), 409 past `maxWebhookEndpoints`.
    package func createWebhook(appId: String, url text: String, eventTypes: [String]) async throws -> WebhookEndpointResponse {
        let (url, kinds): (String, [LifecycleEvent.Kind])
        do {
            (url, kinds) = (try WebhookValidation.url(text), try WebhookValidation.eventTypes(eventTypes))
        } catch let error as ValidationError {
            throw APIError.invalid(error)
        }
        try await requirePublicTarget(url)
        guard try await stores.webhooks.webhookEndpoints(appId: appId).count < Self.maxWebhookEndpoints else {
            throw APIError(.conflict, "too_many_webhooks", "an app has at most \(Self.maxWebhookEndpoints) webhook endpoints; delete one first")
        }
        let id = "whk_" + Secret.base64URL(Secret.randomBytes(12))
        let secret = Secret.generate(prefix: "whsec_")
        let endpoint = WebhookEndpoint(
            id: id, appId: appId, url: url, kinds: kinds, sealedSecret: try webhookSecrets.seal(secret, appId: appId, endpointId: id), createdAt: now()
        )
        try await stores.webhooks.createWebhookEndpoint(endpoint)
        var response = WebhookEndpointResponse(WebhookEndpointStatus(endpoint: endpoint, lastSuccessAt: nil, lastError: nil, lastErrorAt: nil, backlog: 0))
        response.secret = secret
        return response
    }

    /// Refuses a URL whose host is or resolves to a non-public address; one that does not resolve now is accepted
    /// (it is checked again before every delivery).
    func requirePublicTarget(_ url: String) async throws {
        if case .notPublic(let reason) = await configuration.webhooks.targetCheck.check(url: url) {
            throw APIError(.unprocessableContent, "webhook_target_not_public", reason)
        }
    }

    /// One endpoint with its status. - Throws: 404 for an unknown one.
    package func webhookEndpoint(appId: String, id: String) async throws -> WebhookEndpointStatus {
        guard let status = try await stores.webhooks.webhookEndpoint(appId: appId, id: id) else { throw APIError.notFound("no webhook \(id)") }
        return status
    }

    /// Deletes an endpoint and its queued deliveries. - Throws: 404 for an unknown one.
    package func deleteWebhook(appId: String, id: String) async throws {
        guard try await stores.webhooks.deleteWebhookEndpoint(appId: appId, id: id) else { throw APIError.notFound("no webhook \(id)") }
    }

    /// A new secret, shown once; the current one keeps signing beside it for `overlapSeconds` (default
    /// `webhooks.secretOverlapSeconds`; 0: it stops at once).
    /// - Throws: 400 for an overlap out of range, 404 for an unknown endpoint.
    package func rotateWebhookSecret(appId: String, id: String, overlapSeconds: Int?) async throws -> WebhookSecretResponse {
        let overlap = try overlapSeconds.map { seconds in
            guard Self.webhookOverlapLimits.contains(seconds) else {
                throw APIError.invalid(ValidationError(field: "overlapSeconds", "must be a whole number from 0 to \(Self.webhookOverlapLimits.upperBound)"))
            }
            return seconds
        } ?? Int(configuration.webhooks.secretOverlap.seconds)
        let current = try await webhookEndpoint(appId: appId, id: id).endpoint
        let until = overlap > 0 ? now().addingTimeInterval(TimeInterval(overlap)) : nil
        let previous = try until.map { _ in try webhookSecrets.resealAsPrevious(current) }
        let secret = Secret.generate(prefix: "whsec_")
        let sealed = try webhookSecrets.seal(secret, appId: appId, endpointId: id)
        guard try await stores.webhooks.rotateWebhookSecret(appId: appId, id: id, sealed: sealed, previous: previous, previousExpiresAt: until) else {
            throw APIError.notFound("no webhook \(id)")
        }
        return WebhookSecretResponse(id: id, secret: secret, previousSecretValidUntil: until)
    }

    /// Sends the endpoint a signed `webhook.test` now (checked like every delivery) and says what came of it: the
    /// status, the time it took, a plain error; never what the endpoint answered in its body.
    /// - Throws: 404 for an unknown endpoint, 409 when its secret does not open.
    package func testWebhook(appId: String, id: String) async throws -> WebhookTestResponse {
        let status = try await webhookEndpoint(appId: appId, id: id)
        let event = LifecycleEvent.make(appId: appId, kind: .test, at: now(), data: ["webhookId": .string(id)])
        let signing: [String]
        do {
            signing = try webhookSecrets.signing(status.endpoint, at: now())
        } catch {
            throw APIError(.conflict, "secret_unreadable", "the webhook's secret does not open with this server's master key; rotate it")
        }
        // The server's start has read `webhooks.caFile` already (it stops when the file is bad): this finds its transport.
        let poster = WebhookPoster(
            transport: (try? HTTPWebhookTransport.trusting(caFile: configuration.webhooks.caFile)) ?? .shared, timeout: configuration.webhooks.requestTimeout, target: configuration.webhooks.targetCheck, now: now
        )
        let outcome = await poster.post(event, to: status.endpoint.url, secrets: signing)
        return WebhookTestResponse(
            delivered: outcome.delivered, status: outcome.status, latencyMs: outcome.latency.map { Int($0.seconds * 1000) }, error: outcome.error,
            eventId: event.id
        )
    }
}
