import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxAPNs
import SignalboxModel
import SignalboxDelivery

/// `/v1/apps/{appId}/events` and `/pushes` (server key).
struct EventRoutes {
    let dependencies: APIDependencies

    func add(to router: Router<BasicRequestContext>) {
        let app = router.group("v1/apps/:appId")
        app.post("events") { request, context in
            let appId = try await authorize(request, context)
            var request = request
            let body = try Validate.event(try await request.decodeJSON(EventRequest.self, limit: dependencies.configuration.bodyLimit))
            let event = EventRecord(id: RandomID.make(), appId: appId, request: body, createdAt: dependencies.now())
            try await dependencies.store.createEvent(event)
            dependencies.signals.fanOut.signal()
            return Response.json(EventAcceptedResponse(eventId: event.id), status: .accepted)
        }
        app.get("events/:eventId") { request, context in
            let appId = try await authorize(request, context)
            let eventId = try context.parameters.require("eventId")
            guard let status = try await dependencies.store.eventStatus(appId: appId, id: eventId) else {
                throw APIError.notFound("no event \(eventId)")
            }
            return Response.json(EventStatusResponse(
                eventId: eventId, state: status.state.rawValue, matched: status.matched, coalesced: status.coalesced,
                delivered: status.delivered, pending: status.pending, failed: status.failed, pruned: status.pruned,
                reason: status.reason
            ))
        }
        app.post("pushes") { request, context in
            let appId = try await authorize(request, context)
            var request = request
            return try await push(appId: appId, try await request.decodeJSON(PushRequest.self, limit: dependencies.configuration.bodyLimit))
        }
    }

    private func authorize(_ request: Request, _ context: BasicRequestContext) async throws -> String {
        let appId = try context.parameters.require("appId")
        _ = try await dependencies.auth.requireAppAccess(request, appId: appId, deviceAllowed: false)
        return appId
    }

    /// Sends one push now and answers with what APNs said.
    private func push(appId: String, _ body: PushRequest) async throws -> Response {
        let token = try Validate.token(body.pushToken, field: "pushToken")
        guard let type = PushType(rawValue: body.pushType) else {
            throw APIError.invalid(ValidationError(field: "pushType", "must be one of \(PushType.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        guard let app = try await dependencies.apps.app(id: appId) else { throw APIError.notFound("no app \(appId)") }
        let environment = try body.environment.map { value throws(ValidationError) in try Validate.environment(value, field: "environment") } ?? app.environment
        let priority: Priority?? = try body.priority.map { value throws(ValidationError) in
            guard let priority = Priority(rawValue: value) else { throw ValidationError(field: "priority", "must be 1, 5 or 10") }
            return .some(priority)
        } ?? .none
        let expiration: Expiration?? = try body.expiration.map { value throws(ValidationError) in
            guard value >= 0 else { throw ValidationError(field: "expiration", "must be a UNIX time in seconds, or 0") }
            return .some(Expiration(headerValue: String(value)))
        } ?? .none
        let payload = try body.payload.map { value throws(ValidationError) -> [UInt8] in
            guard case .object = value else { throw ValidationError(field: "payload", "must be a JSON object") }
            return Array(value.canonicalJSON.utf8)
        }
        if let collapseId = body.collapseId, !Push.isValidCollapseId(collapseId) {
            throw APIError.invalid(ValidationError(field: "collapseId", "must be 1-64 printable ASCII characters (0x21-0x7E)"))
        }
        do {
            let result = try await dependencies.sendDirect(
                appId: appId, token: token, type: type, environment: environment.apns,
                payload: payload, priority: priority, expiration: expiration, collapseId: body.collapseId
            )
            return Response.json(PushResponse(
                status: result.response.status, reason: result.response.reason?.rawValue,
                apnsId: result.response.apnsId?.uuidString.lowercased(), outcome: result.outcome.name
            ))
        } catch PushSender.Failure.invalid(let message) {
            throw APIError(.badRequest, "invalid_push", message)
        } catch let error as APNsTransportError {
            throw APIError(.badGateway, "apns_unreachable", "no answer from APNs: \(error.code.rawValue)")
        }
    }
}
