import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxModel
import SignalboxWebhooks

/// `/v1/apps/{appId}/webhooks`: an app's webhook endpoints, their secrets and status, a test delivery, and the app's
/// lifecycle events by cursor. The admin key or the app's server key.
struct WebhookRoutes {
    let dependencies: APIDependencies
    /// Events per page of `…/webhooks/events`: the default and the allowed `limit`s.
    static let defaultPage = 100
    static let pageLimits = 1...1_000

    func add(to router: Router<BasicRequestContext>) {
        let hooks = router.group("v1/apps/:appId/webhooks")
        hooks.post { request, context in try await create(request, context) }
        hooks.get { request, context in
            let appId = try await authorize(request, context)
            return Response.json(WebhookEndpointList(endpoints: try await dependencies.webhookEndpoints(appId: appId)))
        }
        hooks.get("events") { request, context in try await events(request, context) }
        hooks.get(":webhookId") { request, context in
            let (appId, id) = try await authorizeEndpoint(request, context)
            return Response.json(WebhookEndpointResponse(try await dependencies.webhookEndpoint(appId: appId, id: id)))
        }
        hooks.delete(":webhookId") { request, context in
            let (appId, id) = try await authorizeEndpoint(request, context)
            try await dependencies.deleteWebhook(appId: appId, id: id)
            return Response(status: .noContent)
        }
        hooks.post(":webhookId/secret") { request, context in try await rotate(request, context) }
        hooks.post(":webhookId/test") { request, context in
            let (appId, id) = try await authorizeEndpoint(request, context)
            return Response.json(try await dependencies.testWebhook(appId: appId, id: id))
        }
    }

    private func create(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let appId = try await authorize(request, context)
        var request = request
        let body = try await request.decodeJSON(CreateWebhookRequest.self, limit: dependencies.configuration.bodyLimit)
        return Response.json(try await dependencies.createWebhook(appId: appId, url: body.url, eventTypes: body.eventTypes ?? []), status: .created)
    }

    /// `POST …/{webhookId}/secret`: a new secret, shown once (`APIDependencies.rotateWebhookSecret`).
    private func rotate(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (appId, id) = try await authorizeEndpoint(request, context)
        var request = request
        let body = try await request.decodeJSON(WebhookSecretRotation.self, limit: dependencies.configuration.bodyLimit, emptyAs: WebhookSecretRotation())
        return Response.json(try await dependencies.rotateWebhookSecret(appId: appId, id: id, overlapSeconds: body.overlapSeconds))
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
        let events = try await dependencies.stores.webhooks.lifecycleEvents(appId: appId, after: after, limit: limit)
        return Response.json(LifecycleEventList(events: events.map { (try? JSONValue(json: $0.body)) ?? .null }, next: events.last?.id ?? after))
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
}
