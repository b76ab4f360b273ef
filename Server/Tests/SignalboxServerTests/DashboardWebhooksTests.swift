import Foundation
import Testing

/// The dashboard's webhooks page through the router: who may use it, CSRF on every form, and refusals shown as the
/// API words them (the browser test walks the page).
struct DashboardWebhooksTests {
    @Test func appAndAdminSessionsManageWebhooksWithCSRFAndOnlyTheirApp() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let other = try await api.createApp(bundleId: "com.example.other")
            var browser = DashboardTests.Browser(client: api.client)
            _ = try await browser.signIn(app.serverKey)
            let page = try await browser.get("/dashboard/apps/\(app.id)/webhooks")
            #expect(page.status == 200 && page.body.contains("No webhook endpoints yet."))
            let csrf = try #require(page.csrf)
            #expect(try await browser.get("/dashboard/apps/\(other.id)/webhooks").status == 403, "another app's page")
            let forged = try await browser.post("/dashboard/apps/\(app.id)/webhooks", form: ["url": "https://hooks.example.com/x", "csrf": "nope"])
            #expect(forged.status == 403)
            let refused = try await browser.post("/dashboard/apps/\(app.id)/webhooks", form: ["url": "http://169.254.169.254/latest", "csrf": csrf])
            #expect(refused.status == 422 && refused.body.contains("link-local address"), "\(refused.body)")
            #expect(refused.body.contains("http://169.254.169.254/latest"), "the form keeps what was typed")
            let created = try await browser.post(
                "/dashboard/apps/\(app.id)/webhooks", form: ["url": "https://hooks.example.com/x", "type:token.pruned": "on", "csrf": csrf]
            )
            #expect(created.status == 200 && created.body.contains("whsec_") && created.body.contains("events: token.pruned"), "\(created.body)")
            let hooks = try #require(try await api.call(.get, "/v1/apps/\(app.id)/webhooks", key: app.serverKey).json?["endpoints"] as? [[String: Any]])
            let id = try #require(hooks.first?["id"] as? String)
            #expect(hooks.first?["eventTypes"] as? [String] == ["token.pruned"])
            #expect(try await browser.post("/dashboard/apps/\(app.id)/webhooks/\(id)/delete", form: ["csrf": "nope"]).status == 403)
            #expect(try await browser.post("/dashboard/apps/\(other.id)/webhooks/\(id)/delete", form: ["csrf": csrf]).status == 403)
            let missing = try await browser.post("/dashboard/apps/\(app.id)/webhooks/whk_nope/secret", form: ["csrf": csrf])
            #expect(missing.status == 404 && missing.body.contains("no webhook whk_nope"))

            var admin = DashboardTests.Browser(client: api.client)
            _ = try await admin.signIn(Harness.adminKey)
            let adminPage = try await admin.get("/dashboard/apps/\(app.id)/webhooks")
            #expect(adminPage.body.contains("hooks.example.com"))
            let deleted = try await admin.post("/dashboard/apps/\(app.id)/webhooks/\(id)/delete", form: ["csrf": try #require(adminPage.csrf)])
            #expect(deleted.status == 303)
            #expect(try await api.call(.get, "/v1/apps/\(app.id)/webhooks/\(id)", key: app.serverKey).status == 404)
        }
    }
}
