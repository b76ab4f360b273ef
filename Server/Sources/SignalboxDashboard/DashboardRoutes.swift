import Crypto
import Foundation
import SignalboxServer
import Hummingbird
import HTTPTypes
import NIOCore
import SignalboxModel

/// `/dashboard`: server-rendered pages for operators, signed in with the admin key (every app) or an app's
/// server key (that app). The session cookie is `HttpOnly` and `SameSite=Strict` (`Secure` under TLS); every
/// POST form carries the session's CSRF token; pages render no stored secret and forbid scripts and framing.
struct DashboardRoutes {
    let dependencies: APIDependencies
    /// The app page's reload figures, shared by every request.
    let reloadFigures = ReloadFiguresCache()
    var sessions: DashboardSessions { DashboardSessions(store: dependencies.stores.dashboardSessions) }

    static let sessionCookie = "signalbox_session"
    /// Double-submit token of the sign-in form (there is no session yet to hold one).
    static let loginCookie = "signalbox_login"

    /// A signed-in request: its session and the page chrome built from it.
    struct Visitor {
        let session: DashboardSessions.Session
        let sessionId: String

        var isAdmin: Bool { session.principal == .admin }

        func chrome(_ title: String, app: String? = nil, error: String? = nil) -> Chrome {
            var appLink = app.map(Chrome.AppLink.init)
            if appLink == nil, case .app(let id, _) = session.principal { appLink = Chrome.AppLink(id: id) }
            return Chrome(title: title, csrf: session.csrfToken, isAdmin: isAdmin, app: appLink, error: error)
        }
    }

    func add(to router: Router<BasicRequestContext>) {
        // A refused form (stale CSRF token, too large, not a form) gets a page with a way back, not the API's JSON.
        let dashboard = router.group("dashboard").add(middleware: ErrorMiddleware { [self] error in
            message(nil, error.status.reasonPhrase, error.message, status: error.status)
        })
        dashboard.get { request, _ in
            guard let visitor = try await visitor(request) else { return Response.redirect(to: "/dashboard/login") }
            switch visitor.session.principal {
            case .admin: return Response.redirect(to: "/dashboard/apps")
            case .app(let id, _): return Response.redirect(to: "/dashboard/apps/\(id)")
            }
        }
        dashboard.get("style.css") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=300"],
                body: .init(byteBuffer: ByteBuffer(string: DashboardStyle.css))
            )
        }
        dashboard.get("login") { _, _ in loginPage(error: nil) }
        dashboard.post("login") { request, _ in try await signIn(request) }
        dashboard.post("logout") { request, _ in
            guard let visitor = try await visitor(request) else { return Response.redirect(to: "/dashboard/login") }
            _ = try await form(request, visitor)
            try await sessions.end(id: visitor.sessionId)
            var response = Response.redirect(to: "/dashboard/login")
            response.setCookie(cookie(Self.sessionCookie, "", maxAge: 0))
            return response
        }
        addAppsPages(to: dashboard)
        addAppPages(to: dashboard)
        addWebhookPages(to: dashboard)
    }

    // MARK: Sign-in

    private func loginPage(error: String?, status: HTTPResponse.Status = .ok) -> Response {
        let token = Secret.generate(prefix: "")
        var response = render("login", LoginPage(chrome: Chrome(title: "Sign in", csrf: nil, isAdmin: false, app: nil, error: error), loginToken: token), status: status)
        response.setCookie(cookie(Self.loginCookie, token, maxAge: 3600))
        return response
    }

    private func signIn(_ request: Request) async throws -> Response {
        let fields = try await formFields(request)
        guard let expected = request.cookies[Self.loginCookie]?.value, let sent = fields["csrf"],
            Secret.constantTimeEquals(Array(expected.utf8), Array(sent.utf8))
        else {
            return loginPage(error: "The sign-in form expired; please try again.", status: .forbidden)
        }
        let key = (fields["key"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard let principal = try await dependencies.auth.dashboardOwner(key: key).map(DashboardPrincipal.init) else {
            return loginPage(error: "That is neither the admin key nor an app's server key.", status: .unauthorized)
        }
        let (id, _) = try await sessions.start(principal, now: dependencies.now())
        var response = Response.redirect(to: "/dashboard")
        response.setCookie(cookie(Self.sessionCookie, id, maxAge: Int(DashboardSessions.lifetime)))
        response.setCookie(cookie(Self.loginCookie, "", maxAge: 0))
        return response
    }

    // MARK: Sessions and forms

    /// The signed-in visitor, or nil. An app session ends when its server key is rotated or the app deleted.
    func visitor(_ request: Request) async throws -> Visitor? {
        guard let id = request.cookies[Self.sessionCookie]?.value, !id.isEmpty, id.utf8.count <= 256,
            let session = try await sessions.session(id: id, now: dependencies.now())
        else {
            return nil
        }
        if case .app(let appId, let keyHash) = session.principal {
            guard let app = try await dependencies.apps.app(id: appId), app.serverKeyHash == keyHash else {
                try await sessions.end(id: id)
                return nil
            }
        }
        return Visitor(session: session, sessionId: id)
    }

    /// Whether a request may see an app's pages.
    enum Access {
        case allowed(Visitor, AppRecord)
        /// A redirect to sign in, or a 403/404 page.
        case refused(Response)
    }

    /// A signed-in visitor allowed to see `appId` (and the app), else a redirect to sign in or a 403/404 page.
    func viewer(_ request: Request, appId: String) async throws -> Access {
        guard let visitor = try await visitor(request) else { return .refused(Response.redirect(to: "/dashboard/login")) }
        guard visitor.session.principal.mayView(appId: appId) else {
            return .refused(message(visitor, "Not your app", "This session is for another app.", status: .forbidden))
        }
        guard let app = try await dependencies.stores.registry.app(id: appId) else {
            return .refused(message(visitor, "No such app", "There is no app \(appId).", status: .notFound))
        }
        return .allowed(visitor, app)
    }

    /// The posted form, after checking its CSRF token. - Throws: `APIError` (403) when the token is wrong.
    func form(_ request: Request, _ visitor: Visitor) async throws -> FormData {
        let fields = try await formFields(request)
        guard let sent = fields["csrf"], Secret.constantTimeEquals(Array(sent.utf8), Array(visitor.session.csrfToken.utf8)) else {
            throw APIError(.forbidden, "csrf", "the form's token does not match this session; reload the page")
        }
        return fields
    }

    private func formFields(_ request: Request) async throws -> FormData {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: dependencies.configuration.bodyLimit)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "body_too_large", "the form is larger than \(dependencies.configuration.bodyLimit) bytes")
        }
        guard let fields = FormData(contentType: request.headers[.contentType], body: Array(buffer.readableBytesView)) else {
            throw APIError(.badRequest, "invalid_form", "expected a form (urlencoded or multipart)")
        }
        return fields
    }

    private func cookie(_ name: String, _ value: String, maxAge: Int) -> Cookie {
        Cookie(
            name: name, value: value, maxAge: maxAge, path: "/dashboard", secure: dependencies.configuration.tls != nil, httpOnly: true,
            sameSite: .strict
        )
    }

    // MARK: Rendering

    /// Security headers of every page: no caching (a page may show a new key), no scripts, no framing.
    static let pageHeaders: HTTPFields = [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
        .contentSecurityPolicy: "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff", HTTPField.Name("Referrer-Policy")!: "no-referrer",
    ]

    func render(_ template: String, _ page: Any, status: HTTPResponse.Status = .ok) -> Response {
        let html = DashboardTemplates.library.render(page, withTemplate: template) ?? "template \(template) missing"
        return Response(status: status, headers: Self.pageHeaders, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    func message(_ visitor: Visitor?, _ heading: String, _ text: String, status: HTTPResponse.Status) -> Response {
        let chrome = visitor?.chrome(heading) ?? Chrome(title: heading, csrf: nil, isAdmin: false, app: nil)
        return render("message", MessagePage(chrome: chrome, heading: heading, text: text), status: status)
    }
}
