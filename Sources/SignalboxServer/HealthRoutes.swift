import Hummingbird
import Prometheus

/// `/healthz` (the process answers), `/readyz` (storage answers), `/metrics` (Prometheus text).
struct HealthRoutes {
    let dependencies: APIDependencies

    func add(to router: Router<BasicRequestContext>) {
        router.get("healthz") { _, _ in Response.json(["status": "ok"]) }
        router.get("readyz") { _, _ in
            do {
                try await dependencies.store.ping()
                return Response.json(["status": "ready"])
            } catch {
                return Response.json(["status": "storage unavailable"], status: .serviceUnavailable)
            }
        }
        router.get("metrics") { _, _ in
            var text = [UInt8]()
            dependencies.metrics.emit(into: &text)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: text))
            )
        }
    }
}
