import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxModel

/// `GET /v1/apps/{appId}/tokens/{token}` and `GET /v1/apps/{appId}/events` (server key): what an operator asks
/// about a token or the app's events.
struct InspectionRoutes {
    let dependencies: APIDependencies

    /// Delivery-log lines returned with a token.
    static let tokenLogLines = 50
    /// Events per page: the default and the largest `limit`.
    static let defaultPage = 50
    static let pageLimits = 1...500

    func add(to router: Router<BasicRequestContext>) {
        let app = router.group("v1/apps/:appId")
        app.get("tokens/:token") { request, context in
            let appId = try await authorize(request, context)
            let token = try Validate.token(try context.parameters.require("token"), field: "token")
            let registrations = try await dependencies.stores.deliveryLog.registrations(appId: appId, token: token)
            let deliveries = try await dependencies.stores.deliveryLog.deliveryLog(appId: appId, token: token, limit: Self.tokenLogLines)
            guard !registrations.isEmpty || !deliveries.isEmpty else {
                throw APIError.notFound("token \(token) is not registered and has no delivery-log lines")
            }
            return Response.json(TokenInspectionResponse(
                token: token, registrations: registrations.map(Self.response), deliveries: deliveries.map(Self.response)
            ))
        }
        app.get("events") { request, context in
            let appId = try await authorize(request, context)
            let query = try request.query(allowing: ["state", "limit", "after"])
            let state = try query["state"].map { value in
                guard let state = EventState(rawValue: value) else {
                    throw APIError.invalid(ValidationError(
                        field: "state", "must be one of accepted, fanning-out, delivering, done, failed"
                    ))
                }
                return state
            }
            let limit = try query["limit"].map { value in
                guard let limit = Int(value), Self.pageLimits.contains(limit) else {
                    throw APIError.invalid(ValidationError(field: "limit", "must be a whole number from \(Self.pageLimits.lowerBound) to \(Self.pageLimits.upperBound)"))
                }
                return limit
            } ?? Self.defaultPage
            let after = query["after"]
            let events: [EventSummary]
            do {
                events = try await dependencies.stores.deliveryLog.events(appId: appId, state: state, limit: limit + 1, after: after)
            } catch let error as StoreError where error.code == .notFound {
                throw APIError.invalid(ValidationError(field: "after", "names no event of this app"))
            }
            let page = events.prefix(limit)
            return Response.json(EventListResponse(
                events: page.map(Self.response), next: events.count > limit ? page.last?.id : nil
            ))
        }
    }

    private func authorize(_ request: Request, _ context: BasicRequestContext) async throws -> String {
        let appId = try context.parameters.require("appId")
        _ = try await dependencies.auth.requireAppAccess(request, appId: appId, deviceAllowed: false)
        return appId
    }

    static func response(_ registration: TokenRegistration) -> TokenRegistrationResponse {
        TokenRegistrationResponse(
            installationId: registration.installationId, userId: registration.userId, kind: registration.kind.rawValue,
            targets: registration.targets, configurations: registration.configurations.map { (try? JSONValue(json: $0)) ?? .object([:]) },
            tokenSeenAt: SignalboxJSON.format(registration.tokenSeenAt)
        )
    }

    static func response(_ entry: DeliveryLogEntry) -> DeliveryLogResponse {
        DeliveryLogResponse(
            token: entry.token, pushType: entry.pushType, eventId: entry.eventId, outcome: entry.outcome.rawValue, status: entry.answer.status,
            reason: entry.answer.reason, apnsId: entry.answer.apnsId, attempt: entry.attempt, at: SignalboxJSON.format(entry.at)
        )
    }

    static func response(_ event: EventSummary) -> EventListItem {
        let status = event.status
        return EventListItem(
            createdAt: SignalboxJSON.format(event.createdAt),
            status: EventStatusResponse(
                eventId: event.id, state: status.state.rawValue, matched: status.matched, coalesced: status.coalesced,
                delivered: status.delivered, pending: status.pending, failed: status.failed, pruned: status.pruned, reason: status.reason
            )
        )
    }
}
