import Foundation
import Hummingbird
import Prometheus
import SignalboxDelivery

/// `/healthz` (the process answers), `/readyz` (storage answers; apps whose sending is paused are listed to
/// the admin key only, since app ids and pause reasons are no business of anyone who can reach the port),
/// `/metrics` (Prometheus text; behind `metricsKey` when one is configured).
struct HealthRoutes {
    let dependencies: APIDependencies

    func add(to router: Router<BasicRequestContext>) {
        router.get("healthz") { _, _ in Response.json(["status": "ok"]) }
        router.get("readyz") { request, _ in
            do {
                try await dependencies.stores.registry.ping()
                let paused = dependencies.signals.pauses.active(at: Date()).sorted { $0.key < $1.key }.map {
                    PausedApp(appId: $0.key, reason: $0.value.reason, until: $0.value.until)
                }
                let status = paused.isEmpty ? "ready" : "degraded"
                guard (try? dependencies.auth.requireAdmin(request)) != nil else { return Response.json(["status": status]) }
                return Response.json(Readiness(status: status, pausedApps: paused))
            } catch {
                return Response.json(["status": "storage unavailable"], status: .serviceUnavailable)
            }
        }
        router.get("metrics") { request, _ in
            try dependencies.auth.requireMetricsAccess(request)
            var text = [UInt8]()
            dependencies.metrics.emit(into: &text)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: text))
            )
        }
    }
}

/// The `/readyz` answer: still 200 when some apps are paused, since the others keep sending.
struct Readiness: Encodable {
    let status: String
    let pausedApps: [PausedApp]
}

/// An app whose sending is paused after APNs refused its credentials.
struct PausedApp: Encodable {
    let appId: String
    let reason: String
    let until: Date
}
