import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxModel

/// `POST …/installations/{installationId}/reloads`: the SDK's reload receipts (device JWT of the installation, or the
/// server key), matched to the pushes they answer and counted in `/metrics`.
extension InstallationRoutes {
    /// How long after a push's delivery a reload still answers it.
    static let reloadWindow: TimeInterval = 15 * 60
    /// Receipts kept per installation (matched or not); older ones are dropped as new ones arrive, so a device that
    /// reports in a loop cannot grow the table until the age limit prunes it.
    static let reloadsKept = 1000

    func addReloads(to installation: RouterGroup<BasicRequestContext>) {
        installation.post("reloads") { request, context in
            let (appId, installationId) = try await authorizeOwner(request, context)
            var request = request
            let body = try await request.decodeJSON(ReloadsRequest.self, limit: dependencies.configuration.bodyLimit)
            let now = dependencies.now()
            let receipts = try Validate.reloads(body, now: now)
            let recorded = try await dependencies.stores.reloads.recordReloads(
                appId: appId, installationId: installationId, receipts, window: Self.reloadWindow, keep: Self.reloadsKept, now: now
            )
            for match in recorded.matches { ReloadMetrics.shared.count(match) }
            if recorded.dropped > 0 {
                ReloadMetrics.shared.countDropped(recorded.dropped)
                context.logger.notice("dropped the installation's oldest reload receipts beyond the cap", metadata: [
                    "app.id": .string(appId), "installation.id": .string(installationId), "reloads.dropped": .stringConvertible(recorded.dropped),
                    "reloads.kept": .stringConvertible(Self.reloadsKept),
                ])
            }
            return Response.json(ReloadsResponse(reloads: recorded.matches.map {
                ReloadResult(matched: $0.eventId != nil, eventId: $0.eventId, eventToReloadSeconds: $0.eventToReload)
            }))
        }
    }
}
