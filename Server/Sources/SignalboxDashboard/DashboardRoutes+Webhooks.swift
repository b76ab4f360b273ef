import Foundation
import Hummingbird
import HTTPTypes
import SignalboxModel
import SignalboxServer

/// An app's webhooks page: its endpoints and how each is doing, with create, test, rotate-secret and delete forms.
/// Admin and app sessions alike, as the API lets the admin key and the app's server key do all of it; the work is
/// the API's own (`APIDependencies+Webhooks`), so the page refuses what the API refuses, with its message.
extension DashboardRoutes {
    func addWebhookPages(to dashboard: RouterGroup<BasicRequestContext>) {
        dashboard.get("apps/:appId/webhooks") { request, context in
            try await webhookAction(request, context, form: false) { visitor, app, _ in try await webhooksPage(visitor, app) }
        }
        dashboard.post("apps/:appId/webhooks") { request, context in
            try await webhookAction(request, context) { visitor, app, form in
                let url = (form?["url"] ?? "").trimmingCharacters(in: .whitespaces)
                let types = LifecycleEvent.Kind.subscribable.map(\.rawValue).filter { form?["type:" + $0] != nil }
                do {
                    let created = try await dependencies.createWebhook(appId: app.id, url: url, eventTypes: types)
                    return try await webhooksPage(visitor, app, secret: .init(
                        heading: "Endpoint created", id: created.id, url: created.url, secret: created.secret ?? "", previousUntil: nil
                    ))
                } catch let error as APIError {
                    return try await webhooksPage(visitor, app, url: url, types: types, error: error.message, status: error.status)
                }
            }
        }
        dashboard.post("apps/:appId/webhooks/:webhookId/test") { request, context in
            try await webhookAction(request, context) { visitor, app, _ in
                let id = try context.parameters.require("webhookId")
                let result = try await dependencies.testWebhook(appId: app.id, id: id)
                return try await webhooksPage(visitor, app, test: .init(id: id, result))
            }
        }
        dashboard.post("apps/:appId/webhooks/:webhookId/secret") { request, context in
            try await webhookAction(request, context) { visitor, app, _ in
                let id = try context.parameters.require("webhookId")
                let rotated = try await dependencies.rotateWebhookSecret(appId: app.id, id: id, overlapSeconds: nil)
                let url = try await dependencies.webhookEndpoint(appId: app.id, id: id).endpoint.url
                return try await webhooksPage(visitor, app, secret: .init(
                    heading: "Secret rotated", id: id, url: url, secret: rotated.secret,
                    previousUntil: rotated.previousSecretValidUntil.map(DashboardFormat.time)
                ))
            }
        }
        dashboard.post("apps/:appId/webhooks/:webhookId/delete") { request, context in
            try await webhookAction(request, context) { _, app, _ in
                try await dependencies.deleteWebhook(appId: app.id, id: try context.parameters.require("webhookId"))
                return Response(status: .seeOther, headers: [.location: "/dashboard/apps/\(app.id)/webhooks"])
            }
        }
    }

    /// Runs `body` for a visitor allowed to see the app, with the posted form (CSRF checked) unless `form` is false;
    /// an `APIError` (an unknown endpoint, an unreadable secret) becomes a page with its message.
    private func webhookAction(
        _ request: Request, _ context: BasicRequestContext, form: Bool = true,
        _ body: (Visitor, AppRecord, FormData?) async throws -> Response
    ) async throws -> Response {
        switch try await viewer(request, appId: try context.parameters.require("appId")) {
        case .refused(let response):
            return response
        case .allowed(let visitor, let app):
            let fields = form ? try await self.form(request, visitor) : nil
            do {
                return try await body(visitor, app, fields)
            } catch let error as APIError {
                return message(visitor, "Webhook not changed", error.message, status: error.status)
            }
        }
    }

    private func webhooksPage(
        _ visitor: Visitor, _ app: AppRecord, url: String = "", types: [String] = [], test: WebhooksPage.Test? = nil,
        secret: WebhooksPage.NewSecret? = nil, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let endpoints = try await dependencies.webhookEndpoints(appId: app.id)
        return render("webhooks", WebhooksPage(
            chrome: visitor.chrome("Webhooks", app: app.id, error: error), app: .init(id: app.id), bundleId: app.bundleId,
            endpoints: endpoints.map(WebhooksPage.Row.init), test: test, secret: secret,
            form: .init(url: url, kinds: LifecycleEvent.Kind.subscribable.map { .init(name: $0.rawValue, checked: types.contains($0.rawValue)) })
        ), status: status)
    }
}
