import Foundation
import HTTPTypes
import Testing

/// `/metrics` is open by default and, with `metricsKey` set, answers that key alone.
@Suite struct MetricsKeyTests {
    static let metricsKey = "sbm_metrics-key-0123456789abcdef"

    @Test func openWithoutAConfiguredKey() async throws {
        try await Harness.make().run { api in
            let reply = try await api.call(.get, "/metrics", key: nil)
            #expect(reply.status == 200)
        }
    }

    @Test func aConfiguredKeyIsNeededAndNoOtherKeyWillDo() async throws {
        try await Harness.make { $0.metricsKey = Self.metricsKey }.run { api in
            let app = try await api.createApp()
            for key in [nil, "wrong-metrics-key-0123456789", Harness.adminKey, app.serverKey] {
                let reply = try await api.call(.get, "/metrics", key: key)
                #expect(reply.status == 401 && reply.errorCode == "unauthorized", "\(key ?? "none"): \(reply.body)")
                #expect(!reply.body.contains(Self.metricsKey))
            }
            let reply = try await api.call(.get, "/metrics", key: Self.metricsKey)
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType]?.hasPrefix("text/plain") == true)
        }
    }
}
