import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxModel
import SignalboxWebhooks

/// `/v1/apps/{appId}/webhooks`: an app's webhook endpoints, their secrets and status, a test delivery, and the app's
/// lifecycle events by cursor. The admin key or the app's server key.
struct WebhookRoutes {
    let dependencies: APIDependencies
    /// Endpoints per app at most (each lifecycle event is queued once per endpoint).
    static let maxEndpoints = 10
    /// Events per page of `…/webhooks/events`: the default and the allowed `limit`s.
    static let defaultPage = 100
    static let pageLimits = 1...1_000
    static let overlapLimits = 0...(30 * 86_400)

    private var secrets: WebhookSecrets { WebhookSecrets(box: dependencies.secrets) }

    func add(to router: Router<BasicRequestContext>) {
        let hooks = router.group("v1/apps/:appId/webhooks")
        hooks.post { request, context in try await create(request, context) }
        hooks.get { request, context in
            let appId = try await authorize(request, context)
            return Response.json(WebhookEndpointList(endpoints: try await dependencies.store.webhookEndpoints(appId: appId).map { Self.response($0) }))
        }
        hooks.get("events") { request, context in try await events(request, context) }
        hooks.get(":webhookId") { request, context in
            let (appId, id) = try await authorizeEndpoint(request, context)
            return Response.json(Self.response(try await endpoint(appId: appId, id: id)))
        }
        hooks.delete(":webhookId") { request, context in
            let (appId, id) = try await authorizeEndpoint(request, context)
            guard try await dependencies.store.deleteWebhookEndpoint(appId: appId, id: id) else { throw APIError.notFound("no webhook \(id)") }
            return Response(status: .noContent)
        }
        hooks.post(":webhookId/secret") { request, context in try await rotate(request, context) }
        hooks.post(":webhookId/test") { request, context in
            let (appId, id) = try await authorizeEndpoint(request, context)
            let status = try await endpoint(appId: appId, id: id)
            let event = LifecycleEvent.make(appId: appId, kind: .test, at: dependencies.now(), data: ["webhookId": .string(id)])
            let poster = WebhookPoster(transport: HTTPWebhookTransport.shared, timeout: dependencies.configuration.webhooks.requestTimeout, now: dependencies.now)
            let outcome = await poster.post(event, to: status.endpoint.url, secrets: try signing(status.endpoint))
            return Response.json(WebhookTestResponse(delivered: outcome.delivered, status: outcome.status, error: outcome.error, eventId: event.id))
        }
    }

    private func create(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let appId = try await authorize(request, context)
        var request = request
        let body = try await request.decodeJSON(CreateWebhookRequest.self, limit: dependencies.configuration.bodyLimit)
        let url = try WebhookValidation.url(body.url)
        let kinds = try WebhookValidation.eventTypes(body.eventTypes ?? [])
        guard try await dependencies.store.webhookEndpoints(appId: appId).count < Self.maxEndpoints else {
            throw APIError(.conflict, "too_many_webhooks", "an app has at most \(Self.maxEndpoints) webhook endpoints; delete one first")
        }
        let id = "whk_" + Secret.base64URL(Secret.randomBytes(12))
        let secret = Secret.generate(prefix: "whsec_")
        let endpoint = WebhookEndpoint(
            id: id, appId: appId, url: url, kinds: kinds, sealedSecret: try secrets.seal(secret, appId: appId, endpointId: id), createdAt: dependencies.now()
        )
        try await dependencies.store.createWebhookEndpoint(endpoint)
        var response = Self.response(WebhookEndpointStatus(endpoint: endpoint, lastSuccessAt: nil, lastError: nil, lastErrorAt: nil, backlog: 0))
        response.secret = secret
        return Response.json(response, status: .created)
    }

    /// `POST …/{webhookId}/secret`: a new secret, shown once; the current one keeps signing beside it for
    /// `overlapSeconds` (default `webhooks.secretOverlapSeconds`; 0: it stops at once).
    private func rotate(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (appId, id) = try await authorizeEndpoint(request, context)
        var request = request
        let body = try await request.decodeJSON(WebhookSecretRotation.self, limit: dependencies.configuration.bodyLimit, emptyAs: WebhookSecretRotation())
        let overlap = try body.overlapSeconds.map { seconds in
            guard Self.overlapLimits.contains(seconds) else {
                throw APIError.invalid(ValidationError(field: "overlapSeconds", "must be a whole number from 0 to \(Self.overlapLimits.upperBound)"))
            }
            return seconds
        } ?? Int(dependencies.configuration.webhooks.secretOverlap.seconds)
        let current = try await endpoint(appId: appId, id: id).endpoint
        let now = dependencies.now()
        let until = overlap > 0 ? now.addingTimeInterval(TimeInterval(overlap)) : nil
        let previous = try until.map { _ in try secrets.resealAsPrevious(current) }
        let secret = Secret.generate(prefix: "whsec_")
        let sealed = try secrets.seal(secret, appId: appId, endpointId: id)
        guard try await dependencies.store.rotateWebhookSecret(appId: appId, id: id, sealed: sealed, previous: previous, previousExpiresAt: until) else {
            throw APIError.notFound("no webhook \(id)")
        }
        return Response.json(WebhookSecretResponse(id: id, secret: secret, previousSecretValidUntil: until))
    }

    /// `GET …/webhooks/events?after=<id>&limit=<n>`: the app's lifecycle events after the cursor, oldest first.
    private func events(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let appId = try await authorize(request, context)
        let query = try request.query(allowing: ["after", "limit"])
        let limit = try query["limit"].map { value in
            guard let limit = Int(value), Self.pageLimits.contains(limit) else {
                throw APIError.invalid(ValidationError(field: "limit", "must be a whole number from \(Self.pageLimits.lowerBound) to \(Self.pageLimits.upperBound)"))
            }
            return limit
        } ?? Self.defaultPage
        let after = try query["after"].map { value in
            guard LifecycleEventID.isValid(value) else { throw APIError.invalid(ValidationError(field: "after", "must be a lifecycle event id (lev_…)")) }
            return value
        }
        let events = try await dependencies.store.lifecycleEvents(appId: appId, after: after, limit: limit)
        return Response.json(LifecycleEventList(events: events.map { (try? JSONValue(json: $0.body)) ?? .null }, next: events.last?.id ?? after))
    }

    private func endpoint(appId: String, id: String) async throws -> WebhookEndpointStatus {
        guard let status = try await dependencies.store.webhookEndpoint(appId: appId, id: id) else { throw APIError.notFound("no webhook \(id)") }
        return status
    }

    private func signing(_ endpoint: WebhookEndpoint) throws -> [String] {
        do {
            return try secrets.signing(endpoint, at: dependencies.now())
        } catch {
            throw APIError(.conflict, "secret_unreadable", "the webhook's secret does not open with this server's master key; rotate it")
        }
    }

    /// The app id, for the admin key (the app must exist) or the app's server key.
    private func authorize(_ request: Request, _ context: BasicRequestContext) async throws -> String {
        let appId = try context.parameters.require("appId")
        do {
            try dependencies.auth.requireAdmin(request)
            guard try await dependencies.apps.app(id: appId) != nil else { throw APIError.notFound("no app \(appId)") }
        } catch let error as APIError where error.status == .forbidden {
            _ = try await dependencies.auth.requireAppAccess(request, appId: appId, deviceAllowed: false)
        }
        return appId
    }

    private func authorizeEndpoint(_ request: Request, _ context: BasicRequestContext) async throws -> (String, String) {
        (try await authorize(request, context), try context.parameters.require("webhookId"))
    }

    static func response(_ status: WebhookEndpointStatus) -> WebhookEndpointResponse {
        let endpoint = status.endpoint
        return WebhookEndpointResponse(
            id: endpoint.id, url: endpoint.url, eventTypes: endpoint.kinds.map(\.rawValue), createdAt: endpoint.createdAt, secret: nil,
            previousSecretValidUntil: endpoint.previousSealedSecret == nil ? nil : endpoint.previousSecretExpiresAt,
            lastSuccessAt: status.lastSuccessAt, lastError: status.lastError, lastErrorAt: status.lastErrorAt, backlog: status.backlog
        )
    }
}
