import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxModel

/// `POST …/installations/{installationId}/reloads`: the SDK's reload receipts (device JWT of the installation, or the
/// server key), matched to the pushes they answer and counted in `/metrics`.
extension InstallationRoutes {
    /// How long after a push's delivery a reload still answers it.
    static let reloadWindow: TimeInterval = 15 * 60

    func addReloads(to installation: RouterGroup<BasicRequestContext>) {
        installation.post("reloads") { request, context in
            let (appId, installationId) = try await authorizeOwner(request, context)
            var request = request
            let body = try await request.decodeJSON(ReloadsRequest.self, limit: dependencies.configuration.bodyLimit)
            let now = dependencies.now()
            let receipts = try Validate.reloads(body, now: now)
            let matches = try await dependencies.store.recordReloads(
                appId: appId, installationId: installationId, receipts, window: Self.reloadWindow, now: now
            )
            for match in matches { ReloadMetrics.shared.count(match) }
            return Response.json(ReloadsResponse(reloads: matches.map {
                ReloadResult(matched: $0.eventId != nil, eventId: $0.eventId, eventToReloadSeconds: $0.eventToReload)
            }))
        }
    }
}
