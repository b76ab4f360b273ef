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
            let key = try Idempotency.key(of: request)
            var request = request
            let body = try Validate.event(try await request.decodeJSON(EventRequest.self, limit: dependencies.configuration.bodyLimit))
            let event = EventRecord(id: RandomID.make(), appId: appId, request: body, createdAt: dependencies.now())
            let answer = Idempotency.answer(EventAcceptedResponse(eventId: event.id), status: .accepted)
            if let key {
                let idempotent = IdempotentRequest(
                    appId: appId, key: key, fingerprint: try Idempotency.fingerprint(operation: "events", body), at: event.createdAt
                )
                let claim = try await dependencies.intake.accept(event, idempotency: idempotent, answer: answer)
                if let earlier = try Idempotency.earlier(claim) { return earlier }
            } else {
                try await dependencies.intake.accept(event)
            }
            return Idempotency.response(answer)
        }
        app.get("events/:eventId") { request, context in
            let appId = try await authorize(request, context)
            let eventId = try context.parameters.require("eventId")
            guard let status = try await dependencies.stores.delivery.eventStatus(appId: appId, id: eventId) else {
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
            let key = try Idempotency.key(of: request)
            var request = request
            let body = try await request.decodeJSON(PushRequest.self, limit: dependencies.configuration.bodyLimit)
            let push = try await directPush(appId: appId, body)
            guard let key else { return Idempotency.response(try await send(push)) }
            let idempotent = IdempotentRequest(
                appId: appId, key: key, fingerprint: try Idempotency.fingerprint(operation: "pushes", body), at: dependencies.now()
            )
            if let earlier = try Idempotency.earlier(try await dependencies.stores.idempotency.claimIdempotencyKey(idempotent)) { return earlier }
            let answer: StoredAnswer
            do {
                answer = try await send(push)
            } catch let error as APIError where error.status == .badGateway {
                // APNs may have received the push before the connection failed: a retry must not send it again.
                answer = Idempotency.answer(error)
            } catch {
                // Refused before anything was sent: the key is free for a corrected retry.
                try? await dependencies.stores.idempotency.releaseIdempotencyKey(idempotent)
                throw error
            }
            do {
                try await dependencies.stores.idempotency.recordIdempotentAnswer(idempotent, answer)
            } catch {
                // The push went out: its answer is due even so; the unanswered claim is taken over after a while.
                context.logger.warning("an idempotent push's answer could not be kept", metadata: ["error": "\(error)"])
            }
            return Idempotency.response(answer)
        }
    }

    private func authorize(_ request: Request, _ context: BasicRequestContext) async throws -> String {
        let appId = try context.parameters.require("appId")
        _ = try await dependencies.auth.requireAppAccess(request, appId: appId, deviceAllowed: false)
        return appId
    }

    /// A `POST …/pushes` body checked and resolved against its app, before anything is claimed or sent.
    private struct DirectPush {
        let appId: String
        let token: String
        let type: PushType
        let environment: APNsEnvironment
        let payload: [UInt8]?
        let priority: Priority??
        let expiration: Expiration??
        let collapseId: String?
    }

    /// Checks a push request. - Throws: 400 naming the bad field, 404 for an unknown app.
    private func directPush(appId: String, _ body: PushRequest) async throws -> DirectPush {
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
        return DirectPush(
            appId: appId, token: token, type: type, environment: environment.apns, payload: payload, priority: priority,
            expiration: expiration, collapseId: body.collapseId
        )
    }

    /// Sends one push now. - Returns: what APNs said. - Throws: 400 `invalid_push` (nothing sent), 502 when APNs
    /// did not answer, 503 without a transport (nothing sent).
    private func send(_ push: DirectPush) async throws -> StoredAnswer {
        do {
            let result = try await dependencies.sendDirect(
                appId: push.appId, token: push.token, type: push.type, environment: push.environment,
                payload: push.payload, priority: push.priority, expiration: push.expiration, collapseId: push.collapseId
            )
            return Idempotency.answer(PushResponse(
                status: result.response.status, reason: result.response.reason?.rawValue,
                apnsId: result.response.apnsId?.uuidString.lowercased(), outcome: result.outcome.name
            ), status: .ok)
        } catch PushSender.Failure.invalid(let message) {
            throw APIError(.badRequest, "invalid_push", message)
        } catch let error as APNsTransportError {
            throw APIError(.badGateway, "apns_unreachable", "no answer from APNs: \(error.code.rawValue)")
        }
    }
}
