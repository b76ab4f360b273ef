import Foundation
import SignalboxServer
import Hummingbird
import SignalboxAPI
import SignalboxModel

/// The admin's pages: the apps list, creating an app from a `.p8` upload, rotating a server key, deleting an app.
extension DashboardRoutes {
    func addAppsPages(to dashboard: RouterGroup<BasicRequestContext>) {
        dashboard.get("apps") { request, _ in
            guard let visitor = try await visitor(request) else { return Response.redirect(to: "/dashboard/login") }
            guard visitor.isAdmin else { return adminOnly(visitor) }
            return try await appsPage(visitor)
        }
        dashboard.post("apps") { request, _ in
            guard let visitor = try await visitor(request) else { return Response.redirect(to: "/dashboard/login") }
            guard visitor.isAdmin else { return adminOnly(visitor) }
            let form = try await form(request, visitor)
            let body = CreateAppRequest(
                bundleId: form["bundleId"]?.trimmingCharacters(in: .whitespaces) ?? "", teamId: form["teamId"]?.trimmingCharacters(in: .whitespaces) ?? "",
                keyId: form["keyId"]?.trimmingCharacters(in: .whitespaces) ?? "", privateKey: form["privateKey"] ?? "",
                environment: form["environment"] ?? "sandbox"
            )
            do {
                let created = try await dependencies.createApp(body)
                return render("secret", SecretPage(
                    chrome: visitor.chrome("App created", app: created.app.appId), heading: "App created: \(created.app.bundleId)",
                    appId: created.app.appId, bundleId: created.app.bundleId, serverKey: created.serverKey, deviceSecret: created.deviceSecret
                ))
            } catch let error as APIError {
                return try await appsPage(visitor, error: "The app was not created: \(error.message)", status: error.status)
            }
        }
        dashboard.post("apps/:appId/server-key") { request, context in
            guard let visitor = try await visitor(request) else { return Response.redirect(to: "/dashboard/login") }
            guard visitor.isAdmin else { return adminOnly(visitor) }
            _ = try await form(request, visitor)
            let appId = try context.parameters.require("appId")
            guard let app = try await dependencies.stores.registry.app(id: appId) else {
                return message(visitor, "No such app", "There is no app \(appId).", status: .notFound)
            }
            let serverKey = try await dependencies.rotateServerKey(appId: appId)
            return render("secret", SecretPage(
                chrome: visitor.chrome("Server key rotated", app: appId), heading: "New server key for \(app.bundleId)", appId: appId,
                bundleId: app.bundleId, serverKey: serverKey, deviceSecret: nil
            ))
        }
        dashboard.get("apps/:appId/delete") { request, context in
            guard let visitor = try await visitor(request) else { return Response.redirect(to: "/dashboard/login") }
            guard visitor.isAdmin else { return adminOnly(visitor) }
            let appId = try context.parameters.require("appId")
            guard let app = try await dependencies.stores.registry.app(id: appId) else {
                return message(visitor, "No such app", "There is no app \(appId).", status: .notFound)
            }
            return render("deleteApp", DeleteAppPage(chrome: visitor.chrome("Delete \(app.bundleId)", app: appId), id: appId, bundleId: app.bundleId))
        }
        dashboard.post("apps/:appId/delete") { request, context in
            guard let visitor = try await visitor(request) else { return Response.redirect(to: "/dashboard/login") }
            guard visitor.isAdmin else { return adminOnly(visitor) }
            let form = try await form(request, visitor)
            let appId = try context.parameters.require("appId")
            guard let app = try await dependencies.stores.registry.app(id: appId) else {
                return message(visitor, "No such app", "There is no app \(appId).", status: .notFound)
            }
            guard form["confirm"]?.trimmingCharacters(in: .whitespaces) == app.bundleId else {
                var chrome = visitor.chrome("Delete \(app.bundleId)", app: appId)
                chrome.error = "Type the bundle id exactly to confirm; nothing was deleted."
                return render("deleteApp", DeleteAppPage(chrome: chrome, id: appId, bundleId: app.bundleId), status: .badRequest)
            }
            try await dependencies.deleteApp(id: appId)
            return Response.redirect(to: "/dashboard/apps")
        }
    }

    private func appsPage(_ visitor: Visitor, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let pauses = dependencies.signals.pauses.active(at: dependencies.now())
        let apps = try await dependencies.stores.registry.apps().map { AppRow($0, pause: pauses[$0.id]) }
        var chrome = visitor.chrome("Apps")
        chrome.error = error
        return render("apps", AppsPage(chrome: chrome, apps: apps), status: status)
    }

    private func adminOnly(_ visitor: Visitor) -> Response {
        message(visitor, "Admin only", "Managing apps needs the admin key; this session was opened with an app's server key.", status: .forbidden)
    }
}
