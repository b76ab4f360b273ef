import Foundation
import SignalboxServer
import Hummingbird
import SignalboxAPI
import SignalboxAPNs
import SignalboxDelivery
import SignalboxModel

/// An app's pages: overview, token inspector, an event, the test-push form.
extension DashboardRoutes {
    /// Lines of the delivery log a page shows.
    static let logLines = 50
    /// Events on the overview.
    static let recentEvents = 20

    func addAppPages(to dashboard: RouterGroup<BasicRequestContext>) {
        dashboard.get("apps/:appId") { request, context in
            switch try await viewer(request, appId: try context.parameters.require("appId")) {
            case .refused(let response): return response
            case .allowed(let visitor, let app): return try await overview(visitor, app)
            }
        }
        dashboard.get("apps/:appId/inspect") { request, context in
            switch try await viewer(request, appId: try context.parameters.require("appId")) {
            case .refused(let response): return response
            case .allowed(let visitor, let app):
                let query = (request.uri.queryParameters.get("q") ?? "").trimmingCharacters(in: .whitespaces)
                return try await inspect(visitor, app, query: String(query.prefix(200)))
            }
        }
        dashboard.get("apps/:appId/events/:eventId") { request, context in
            switch try await viewer(request, appId: try context.parameters.require("appId")) {
            case .refused(let response): return response
            case .allowed(let visitor, let app): return try await event(visitor, app, id: try context.parameters.require("eventId"))
            }
        }
        dashboard.get("apps/:appId/send") { request, context in
            switch try await viewer(request, appId: try context.parameters.require("appId")) {
            case .refused(let response): return response
            case .allowed(let visitor, let app): return sendPage(visitor, app, token: "", type: .background, environment: app.environment, payload: "")
            }
        }
        addCredentialCheck(to: dashboard)
        addSigningKeyPages(to: dashboard)
        dashboard.post("apps/:appId/send") { request, context in
            switch try await viewer(request, appId: try context.parameters.require("appId")) {
            case .refused(let response): return response
            case .allowed(let visitor, let app): return try await send(visitor, app, form: try await form(request, visitor))
            }
        }
    }

    private func overview(_ visitor: Visitor, _ app: AppRecord) async throws -> Response {
        let stores = dependencies.stores
        let counts = try await stores.deliveryLog.registrationCounts(appId: app.id)
        let depth = try await stores.deliveryLog.outboxDepth(appId: app.id)
        let outcomes = try await stores.deliveryLog.deliveryOutcomes(appId: app.id, since: dependencies.now() - 3600)
        let events = try await stores.deliveryLog.events(appId: app.id, state: nil, limit: Self.recentEvents, after: nil)
        let now = dependencies.now()
        let reloads = try await reloadFigures.stats(appId: app.id, now: now) { try await stores.reloads.reloadStats(appId: app.id, since: now - 3600) }
        let pause = dependencies.signals.pauses.active(at: dependencies.now())[app.id]
        return render("overview", OverviewPage(
            chrome: visitor.chrome(app.bundleId, app: app.id), app: AppRow(app, pause: pause),
            counts: [
                Figure(label: "installations", value: counts.installations), Figure(label: "widget tokens", value: counts.byKind[.widgets] ?? 0),
                Figure(label: "controls", value: counts.byKind[.controls] ?? 0),
                Figure(label: "File Provider tokens", value: counts.byKind[.fileprovider] ?? 0), Figure(label: "pushes queued", value: depth),
            ],
            outcomes: OutcomeRow.rows(outcomes), reloads: reloads.map(ReloadRow.init), events: events.map { EventRow(appId: app.id, $0) }
        ))
    }

    /// Searches `query` as a push token, an installation id and a user id, and shows whatever matches.
    private func inspect(_ visitor: Visitor, _ app: AppRecord, query: String) async throws -> Response {
        let stores = dependencies.stores
        var tokens: [String] = []
        var installation: InspectPage.InstallationMatch?
        var user: InspectPage.UserMatch?
        if !query.isEmpty {
            if let token = try? Validate.token(query, field: "q") { tokens.append(token) }
            if let snapshot = try await stores.registry.installation(appId: app.id, id: query, now: dependencies.now()) {
                var held: [InspectPage.TokenKind] = []
                if let widgets = snapshot.widgets { held.append(.init(token: widgets.pushToken, kind: "widgets")) }
                held += snapshot.controls.map { .init(token: $0.pushToken, kind: "control \($0.kind)") }
                if let fileProvider = snapshot.fileProvider { held.append(.init(token: fileProvider.pushToken, kind: "fileprovider")) }
                let item = snapshot.installation
                installation = .init(
                    id: item.id, userId: item.userId, channels: item.channels.sorted().joined(separator: ", "),
                    environment: item.environment.rawValue, lastSeen: DashboardFormat.time(snapshot.lastSeenAt), tokens: held,
                    lines: try await stores.deliveryLog.deliveryLog(appId: app.id, installationId: item.id, limit: Self.logLines).map(LogLine.init)
                )
            }
            let ids = try await stores.deliveryLog.installationIds(appId: app.id, userId: query, limit: 100)
            if !ids.isEmpty { user = .init(userId: query, installations: ids) }
        }
        var matches: [InspectPage.TokenMatch] = []
        for token in tokens {
            let registrations = try await stores.deliveryLog.registrations(appId: app.id, token: token)
            let lines = try await stores.deliveryLog.deliveryLog(appId: app.id, token: token, limit: Self.logLines)
            guard !registrations.isEmpty || !lines.isEmpty else { continue }
            matches.append(.init(token: token, registrations: registrations.map(InspectPage.Registration.init), lines: lines.map(LogLine.init)))
        }
        let nothing = !query.isEmpty && matches.isEmpty && installation == nil && user == nil
        return render("inspect", InspectPage(
            chrome: visitor.chrome("Inspector", app: app.id), app: .init(id: app.id), query: query, nothingFound: nothing, user: user,
            installation: installation, tokens: matches
        ))
    }

    private func event(_ visitor: Visitor, _ app: AppRecord, id: String) async throws -> Response {
        let stores = dependencies.stores
        guard let summary = try await stores.deliveryLog.event(appId: app.id, id: id) else {
            return message(visitor, "No such event", "The app has no event \(id) (done events are purged after their retention).", status: .notFound)
        }
        let row = EventRow(appId: app.id, summary)
        return render("event", EventPage(
            chrome: visitor.chrome("Event \(id)", app: app.id), event: row, counts: row.figures,
            outcomes: OutcomeRow.rows(try await stores.deliveryLog.deliveryOutcomes(appId: app.id, eventId: id)),
            lines: try await stores.deliveryLog.deliveryLog(appId: app.id, eventId: id, limit: Self.logLines).map(LogLine.init)
        ))
    }

    private func sendPage(
        _ visitor: Visitor, _ app: AppRecord, token: String, type: PushType, environment: SignalboxModel.Environment, payload: String,
        result: SendPage.Result? = nil, error: String? = nil, status: HTTPResponse.Status = .ok
    ) -> Response {
        var chrome = visitor.chrome("Test push", app: app.id)
        chrome.error = error
        let form = SendPage.Form(
            token: token, payload: payload,
            types: PushType.allCases.map { .init(value: $0.rawValue, selected: $0 == type) },
            environments: [SignalboxModel.Environment.sandbox, .production].map { .init(value: $0.rawValue, selected: $0 == environment) }
        )
        return render("send", SendPage(chrome: chrome, app: .init(id: app.id), form: form, result: result), status: status)
    }

    private func send(_ visitor: Visitor, _ app: AppRecord, form: FormData) async throws -> Response {
        let rawToken = (form["token"] ?? "").trimmingCharacters(in: .whitespaces)
        let type = PushType(rawValue: form["pushType"] ?? "") ?? .background
        let environment = SignalboxModel.Environment(rawValue: form["environment"] ?? "") ?? app.environment
        let payloadText = (form["payload"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        func failed(_ message: String) -> Response {
            sendPage(visitor, app, token: rawToken, type: type, environment: environment, payload: payloadText, error: message, status: .badRequest)
        }
        let token: String
        do {
            token = try Validate.token(rawToken, field: "token")
        } catch {
            return failed("The push token must be hex: \(error.description)")
        }
        var payload: [UInt8]?
        if !payloadText.isEmpty {
            guard let value = try? JSONValue(json: payloadText), case .object = value else { return failed("The payload must be a JSON object.") }
            payload = Array(value.canonicalJSON.utf8)
        }
        do {
            let result = try await dependencies.sendDirect(appId: app.id, token: token, type: type, environment: environment.apns, payload: payload)
            return sendPage(
                visitor, app, token: token, type: type, environment: environment, payload: payloadText,
                result: .init(
                    token: token, status: result.response.status, outcome: result.outcome.name, reason: result.response.reason?.rawValue,
                    apnsId: result.response.apnsId?.uuidString.lowercased()
                )
            )
        } catch PushSender.Failure.invalid(let message) {
            return failed("The push cannot be built: \(message)")
        } catch let error as APNsTransportError {
            return failed("No answer from APNs: \(error.code.rawValue)")
        } catch let error as APIError {
            return failed(error.message)
        }
    }
}
