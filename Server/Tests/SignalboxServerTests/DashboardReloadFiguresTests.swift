import Foundation
import SignalboxModel
import SignalboxStore
import Testing

/// The app page's "Reloads in the last hour" table: the store's figures, counted again at most every
/// `ReloadFiguresCache.ttl` (30 s) per app.
@Suite struct DashboardReloadFiguresTests {
    static func row(delivered: Int, matched: Int) -> String {
        #"<td>controls</td><td class="mono">door</td><td class="num">\#(delivered)</td><td class="num">\#(matched)</td>"#
    }

    @Test func theTableShowsTheFiguresAndCountsAgainAfterHalfAMinute() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let store = harness.dependencies.stores
            let app = try await api.createApp()
            let base = "/v1/apps/\(app.id)/installations/phone"
            expectStatus(204, try await api.call(.put, base, key: app.serverKey, json: #"{"userId":"u1","channels":[],"environment":"sandbox"}"#))
            expectStatus(204, try await api.call(.put, base + "/controls", key: app.serverKey, json: #"{"controls":[{"kind":"door","pushToken":"b001"}]}"#))
            func deliverAndReload(_ event: String) async throws {
                try await store.deliveryLog.logDeliveries([DeliveryLogEntry(
                    appId: app.id, token: "b001", pushType: "controls", eventId: event, installationId: "phone", outcome: .delivered,
                    answer: DeliveryAnswer(status: 200), attempt: 1, at: harness.clock.now - 2
                )])
                let at = ISO8601DateFormatter().string(from: harness.clock.now)
                let reply = try await api.call(.post, base + "/reloads", key: app.serverKey, json: #"{"reloads":[{"kind":"door","pushType":"controls","at":"\#(at)"}]}"#)
                #expect(reply.body.contains(#""eventId":"\#(event)""#), "\(reply.body)")
            }
            try await deliverAndReload("e1")
            var browser = DashboardTests.Browser(client: api.client)
            _ = try await browser.signIn(Harness.adminKey)
            let first = try await browser.get("/dashboard/apps/\(app.id)")
            #expect(first.body.contains(Self.row(delivered: 1, matched: 1)), "\(first.body)")

            harness.advance(seconds: 10)
            try await deliverAndReload("e2")
            let cached = try await browser.get("/dashboard/apps/\(app.id)")
            #expect(cached.body.contains(Self.row(delivered: 1, matched: 1)), "within 30 s the page shows the figures it counted")

            harness.advance(seconds: 25)
            let counted = try await browser.get("/dashboard/apps/\(app.id)")
            #expect(counted.body.contains(Self.row(delivered: 2, matched: 2)), "\(counted.body)")
        }
    }
}
