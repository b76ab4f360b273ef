import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import SignalboxDashboard
import SignalboxModel
@testable import SignalboxServer
@testable import SignalboxStore
import SQLKit
import SignalboxStoreTestSupport
import Testing

/// The dashboard's sessions, CSRF tokens and access rules, through the router (the browser test covers the pages).
@Suite struct DashboardTests {
    /// A browser stand-in: keeps the session cookie and posts forms.
    struct Browser {
        let client: any RequestSender
        var cookies: [String: String] = [:]

        struct Page {
            let status: Int
            let headers: HTTPFields
            let body: String
            /// The first form's CSRF token on the page.
            var csrf: String? {
                body.range(of: #"name="csrf" value=""#).map { String(body[$0.upperBound...].prefix { $0 != "\"" }) }
            }
        }

        mutating func get(_ path: String) async throws -> Page { try await send(.get, path, body: nil, contentType: nil) }

        mutating func post(_ path: String, form: [String: String]) async throws -> Page {
            let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            return try await send(.post, path, body: body, contentType: "application/x-www-form-urlencoded")
        }

        mutating func post(_ path: String, multipart fields: [String: String]) async throws -> Page {
            let boundary = "----signalbox-test"
            var body = ""
            for (name, value) in fields {
                let file = name == "privateKey" ? #"; filename="AuthKey.p8""# : ""
                body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\(file)\r\n\r\n\(value)\r\n"
            }
            body += "--\(boundary)--\r\n"
            return try await send(.post, path, body: body, contentType: "multipart/form-data; boundary=\(boundary)")
        }

        mutating func signIn(_ key: String) async throws -> Page {
            let login = try await get("/dashboard/login")
            return try await post("/dashboard/login", form: ["key": key, "csrf": try #require(login.csrf)])
        }

        mutating func send(_ method: HTTPRequest.Method, _ path: String, body: String?, contentType: String?) async throws -> Page {
            var headers: HTTPFields = [:]
            if let contentType { headers[.contentType] = contentType }
            if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
            let reply = try await client.send(method, path, headers: headers, body: body.map { ByteBuffer(string: $0) })
            let page = Page(status: reply.status, headers: reply.headers, body: String(buffer: reply.body))
            for header in page.headers[values: .setCookie] {
                let pair = header.prefix { $0 != ";" }.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2 else { continue }
                cookies[String(pair[0])] = pair[1].isEmpty ? nil : String(pair[1])
            }
            return page
        }
    }

    @Test func signingInSetsAStrictHttpOnlySessionCookieAndPagesNeedIt() async throws {
        try await Harness.make().run { api in
            var browser = Browser(client: api.client)
            let signedOut = try await browser.get("/dashboard/apps")
            #expect(signedOut.status == 303 && signedOut.headers[.location] == "/dashboard/login")
            let refused = try await browser.signIn("sbk_" + String(repeating: "x", count: 43))
            #expect(refused.status == 401)
            let signedIn = try await browser.signIn(Harness.adminKey)
            #expect(signedIn.status == 303)
            let cookie = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("signalbox_session=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/dashboard"))
            let apps = try await browser.get("/dashboard/apps")
            #expect(apps.status == 200 && apps.body.contains("<h1>Apps</h1>"))
            #expect(apps.headers[.cacheControl] == "no-store")
            #expect(apps.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            let logout = try await browser.post("/dashboard/logout", form: ["csrf": try #require(apps.csrf)])
            #expect(logout.status == 303)
            #expect(try await browser.get("/dashboard/apps").status == 303, "signed out")
        }
    }

    @Test func signInWithoutTheFormsTokenIsRefused() async throws {
        try await Harness.make().run { api in
            var browser = Browser(client: api.client)
            let page = try await browser.post("/dashboard/login", form: ["key": Harness.adminKey, "csrf": "forged"])
            #expect(page.status == 403)
            #expect(browser.cookies["signalbox_session"] == nil)
        }
    }

    @Test func aFormWithoutTheSessionsTokenChangesNothing() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            var browser = Browser(client: api.client)
            _ = try await browser.signIn(Harness.adminKey)
            let forged = try await browser.post("/dashboard/apps/\(app.id)/server-key", form: ["csrf": "forged"])
            #expect(forged.status == 403)
            #expect(forged.headers[.contentType] == "text/html; charset=utf-8", "a refused form gets a page, not the API's JSON")
            #expect(forged.body.contains("reload the page") && forged.body.contains(#"href="/dashboard""#))
            let missing = try await browser.post("/dashboard/apps/\(app.id)/delete", form: ["confirm": "com.example.garage"])
            #expect(missing.status == 403)
            #expect(try await api.call(.get, "/v1/apps/\(app.id)/events/none", key: app.serverKey).status == 404, "the server key still works")
            #expect(try await api.call(.get, "/v1/apps/\(app.id)", key: Harness.adminKey).status == 200, "the app still exists")
        }
    }

    @Test func oversizedAndMalformedFormsGetAPageWithAWayBack() async throws {
        try await Harness.make().run { api in
            var browser = Browser(client: api.client)
            _ = try await browser.signIn(Harness.adminKey)
            let apps = try await browser.get("/dashboard/apps")
            let large = try await browser.post("/dashboard/apps", form: ["csrf": try #require(apps.csrf), "p": String(repeating: "x", count: 2_000_000)])
            let notAForm = try await browser.send(.post, "/dashboard/logout", body: "{}", contentType: "application/json")
            for (page, status) in [(large, 413), (notAForm, 400)] {
                #expect(page.status == status)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                #expect(page.body.contains(#"href="/dashboard""#) && !page.body.contains(#""error":"#))
            }
        }
    }

    @Test func createAppFromAnUploadShowsItsKeysOnceAndNeverAgain() async throws {
        try await Harness.make().run { api in
            var browser = Browser(client: api.client)
            _ = try await browser.signIn(Harness.adminKey)
            let list = try await browser.get("/dashboard/apps")
            let pem = P256.Signing.PrivateKey().pemRepresentation
            let bad = try await browser.post("/dashboard/apps", multipart: [
                "csrf": try #require(list.csrf), "bundleId": "com.example.app", "teamId": "TEAM123456", "keyId": "KEY1234567",
                "environment": "sandbox", "privateKey": "not a key",
            ])
            #expect(bad.status == 400 && bad.body.contains("The app was not created"))
            let created = try await browser.post("/dashboard/apps", multipart: [
                "csrf": try #require(list.csrf), "bundleId": "com.example.app", "teamId": "TEAM123456", "keyId": "KEY1234567",
                "environment": "sandbox", "privateKey": pem,
            ])
            #expect(created.status == 200)
            let serverKey = try #require(created.body.range(of: #"<code id="server-key">"#).map { String(created.body[$0.upperBound...].prefix { $0 != "<" }) })
            #expect(serverKey.hasPrefix("sbk_"))
            #expect(created.headers[.cacheControl] == "no-store")
            let appId = try #require(created.body.range(of: #"<code id="app-id">"#).map { String(created.body[$0.upperBound...].prefix { $0 != "<" }) })
            #expect(try await api.call(.get, "/v1/apps/\(appId)/events/none", key: serverKey).status == 404, "the shown key works")
            for path in ["/dashboard/apps", "/dashboard/apps/\(appId)", "/dashboard/apps/\(appId)/send", "/dashboard/apps/\(appId)/delete"] {
                let page = try await browser.get(path)
                #expect(page.status == 200, "\(path)")
                #expect(!page.body.contains(serverKey) && !page.body.contains("PRIVATE KEY") && !page.body.contains("sbd_"), "\(path) shows a secret")
            }
        }
    }

    @Test func aServerKeySessionSeesOnlyItsAppAndEndsWithTheKey() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let other = try await api.createApp(bundleId: "com.example.other")
            var browser = Browser(client: api.client)
            let signedIn = try await browser.signIn(app.serverKey)
            #expect(signedIn.headers[.location] == "/dashboard")
            #expect(try await browser.get("/dashboard").headers[.location] == "/dashboard/apps/\(app.id)")
            #expect(try await browser.get("/dashboard/apps/\(app.id)").status == 200)
            #expect(try await browser.get("/dashboard/apps/\(other.id)").status == 403)
            #expect(try await browser.get("/dashboard/apps").status == 403, "managing apps is the admin's")
            #expect(try await api.call(.post, "/v1/apps/\(app.id)/server-key", key: Harness.adminKey).status == 200)
            #expect(try await browser.get("/dashboard/apps/\(app.id)").status == 303, "a rotated key ends its sessions")
        }
    }

    @Test func deletingAnAppNeedsItsBundleIdTyped() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            var browser = Browser(client: api.client)
            _ = try await browser.signIn(Harness.adminKey)
            let confirm = try await browser.get("/dashboard/apps/\(app.id)/delete")
            let csrf = try #require(confirm.csrf)
            let wrong = try await browser.post("/dashboard/apps/\(app.id)/delete", form: ["csrf": csrf, "confirm": "com.example"])
            #expect(wrong.status == 400)
            #expect(try await api.call(.get, "/v1/apps/\(app.id)", key: Harness.adminKey).status == 200)
            let deleted = try await browser.post("/dashboard/apps/\(app.id)/delete", form: ["csrf": csrf, "confirm": "com.example.garage"])
            #expect(deleted.status == 303)
            #expect(try await api.call(.get, "/v1/apps/\(app.id)", key: Harness.adminKey).status == 404)
        }
    }
}

/// The dashboard's sessions in the database, on each backend: one principal's sign-ins evict only its own
/// sessions (`DashboardSessions.capacityPerPrincipal`), expired ones are refused and pruned, an ended one is gone,
/// and the store holds no cookie value.
@Suite struct DashboardSessionStoreTests {
    @Test(arguments: Backend.available) func signingInAgainAndAgainWithAnAppKeyNeverSignsTheAdminOut(_ backend: Backend) async throws {
        try await backend.withStore { store in
            let sessions = DashboardSessions(store: store.dashboardSessions)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let admin = try await sessions.start(.admin, now: now).id
            let app = DashboardPrincipal.app(id: "a", keyHash: "h")
            let first = try await sessions.start(app, now: now + 1).id
            for index in 0..<DashboardSessions.capacityPerPrincipal { _ = try await sessions.start(app, now: now + 2 + Double(index)) }
            #expect(try await sessions.session(id: admin, now: now + 200)?.principal == .admin, "the admin is still signed in")
            #expect(try await sessions.session(id: first, now: now + 200) == nil, "the app's own oldest session went")
            #expect(try await Self.rows(store) == DashboardSessions.capacityPerPrincipal + 1)
        }
    }

    @Test(arguments: Backend.available) func expiredAndEndedSessionsAreRefusedAndExpiredOnesPruned(_ backend: Backend) async throws {
        try await backend.withStore { store in
            let sessions = DashboardSessions(store: store.dashboardSessions)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let (old, started) = try await sessions.start(.app(id: "a", keyHash: "h"), now: now)
            let live = try await sessions.session(id: old, now: now + 60)
            #expect(live?.principal == .app(id: "a", keyHash: "h") && live?.csrfToken == started.csrfToken)
            let later = now + DashboardSessions.lifetime
            #expect(try await sessions.session(id: old, now: later) == nil, "expired at its end")
            let (next, _) = try await sessions.start(.admin, now: later)
            #expect(try await Self.rows(store) == 1, "the expired session was pruned at the next sign-in")
            #expect(try await Self.stored(store).allSatisfy { !$0.contains(next) && !$0.contains(started.csrfToken) }, "only hashes are stored")
            try await sessions.end(id: next)
            #expect(try await sessions.session(id: next, now: later) == nil)
            #expect(try await Self.rows(store) == 0)
        }
    }

    static func rows(_ store: Stores) async throws -> Int {
        try await stored(store).count
    }

    /// Every stored row, its columns joined.
    static func stored(_ store: Stores) async throws -> [String] {
        let sessions = try #require(store.dashboardSessions as? SQLDashboardSessions)
        return try await sessions.oneStatement { db in
            try await db.raw("SELECT secret_hash || ' ' || owner || ' ' || COALESCE(server_key_hash, '') AS line FROM dashboard_sessions").all()
                .map { try $0.decode(column: "line", as: String.self) }
        }
    }
}
