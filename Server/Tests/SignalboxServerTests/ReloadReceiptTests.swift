import Foundation
import SignalboxAPI
import SignalboxStoreTestSupport
import Testing

/// Reload receipts (`POST …/installations/{id}/reloads`) through the real server and the APNs simulator: a receipt is
/// matched to the push delivered before it, once per push and kind, with the time from the event to the reload.
@Suite struct ReloadReceiptTests {
    static let door = "com.example.garage.door"
    static let toDoors = #"{"target":{"controls":{"kinds":["com.example.garage.door"]}},"audience":{"all":true}}"#

    @Test(arguments: Backend.available) func aReceiptAfterAPushIsMatchedOnceWithItsLatency(_ backend: Backend) async throws {
        let database = backend == .postgres ? try await TestDatabases.fresh() : nil
        try await DeliveryHarness.run(configure: { $0.database = database }) { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", user: "ana", controls: [(Self.door, "north", "a001")])
            let path = "/v1/apps/\(app.id)/installations/phone/reloads"
            let device = app.deviceToken(userId: "ana")

            // Before any push: nothing to answer.
            let early = try await harness.api.call(.post, path, key: device, json: Self.body([(Self.door, "controls", Date())]))
            expectStatus(200, early)
            #expect(try Self.results(early).map(\.matched) == [false])

            let event = try await harness.post(app, event: Self.toDoors)
            #expect(try await harness.waitUntilDone(app, event: event)["delivered"] as? Int == 1)
            let listed = try await harness.api.call(.get, "/v1/apps/\(app.id)/events", key: app.serverKey)
            let createdText = try #require((listed.json?["events"] as? [[String: Any]])?.first?["createdAt"] as? String)
            let created = try #require(SignalboxJSON.parse(createdText))
            let at = Date()
            let reply = try await harness.api.call(.post, path, key: device, json: Self.body([(Self.door, "controls", at)]))
            expectStatus(200, reply)
            let result = try #require(try Self.results(reply).first)
            #expect(result.matched && result.eventId == event)
            let latency = try #require(result.eventToReloadSeconds)
            // A receipt's time is capped at the server's now. On PostgreSQL the server reads the database's clock, whose
            // offset from this process's clock is estimated from a round trip: under load it can run tens of
            // milliseconds behind, and the latency then ends at the server's now instead of `at`.
            let expected = at.timeIntervalSince(created)
            let behind = backend == .postgres ? 1.0 : 0
            #expect(latency < expected + 0.01 && latency > expected - 0.01 - behind, "latency \(latency) s, expected \(expected) s")

            // The same push is not counted twice for the kind; a widget receipt does not match a control push.
            let again = try await harness.api.call(
                .post, path, key: app.serverKey, json: Self.body([(Self.door, "controls", Date()), ("Caffeine", "widgets", Date())])
            )
            expectStatus(200, again)
            #expect(try Self.results(again).map(\.matched) == [false, false])
        }
    }

    @Test(arguments: Backend.available) func aWidgetReceiptMatchesOnlyARegisteredKindAndTheDashboardShowsIt(_ backend: Backend) async throws {
        let database = backend == .postgres ? try await TestDatabases.fresh() : nil
        try await DeliveryHarness.run(configure: { $0.database = database }) { harness in
            let app = try await harness.api.createApp()
            let base = "/v1/apps/\(app.id)/installations/phone"
            expectStatus(204, try await harness.api.call(.put, base, key: app.serverKey, json: #"{"userId":"u1","channels":[],"environment":"sandbox"}"#))
            expectStatus(204, try await harness.api.call(
                .put, base + "/widgets", key: app.serverKey,
                json: #"{"pushToken":"e001","widgets":[{"kind":"Caffeine","family":"systemSmall","configuration":{}}]}"#
            ))
            let event = try await harness.post(app, event: #"{"target":{"widgets":{"kinds":["Caffeine"]}},"audience":{"all":true}}"#)
            #expect(try await harness.waitUntilDone(app, event: event)["delivered"] as? Int == 1)
            let reply = try await harness.api.call(
                .post, base + "/reloads", key: app.serverKey, json: Self.body([("Caffeine", "widgets", Date()), ("Tea", "widgets", Date())])
            )
            expectStatus(200, reply)
            #expect(try Self.results(reply).map(\.eventId) == [event, nil])

            // The app page's table: one push delivered to an installation with Caffeine, one reload matched.
            var browser = DashboardTests.Browser(client: harness.api.client)
            #expect(try await browser.signIn(Harness.adminKey).status == 303)
            let page = try await browser.get("/dashboard/apps/\(app.id)")
            #expect(page.status == 200)
            #expect(page.body.contains(#"<td>widgets</td><td class="mono">Caffeine</td><td class="num">1</td><td class="num">1</td>"#))
            #expect(page.body.contains(#"<td class="num">100 %</td><td class="num">0</td>"#))
            #expect(page.body.contains(#"<td>widgets</td><td class="mono">Tea</td><td class="num">0</td><td class="num">0</td>"#))
        }
    }

    @Test func badReceiptsAreRefusedWithTheField() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", user: "ana", controls: [(Self.door, "north", "a001")])
            let path = "/v1/apps/\(app.id)/installations/phone/reloads"
            let many = Self.body(Array(repeating: (Self.door, "controls", Date()), count: 101))
            let cases: [(String, String)] = [
                (#"{"reloads":[]}"#, "reloads"),
                (many, "reloads"),
                (#"{"reloads":[{"kind":"k","pushType":"fileprovider","at":"2026-11-25T01:28:45Z"}]}"#, "pushType"),
                (#"{"reloads":[{"kind":"","pushType":"widgets","at":"2026-11-25T01:28:45Z"}]}"#, "kind"),
                (#"{"reloads":[{"kind":"k","pushType":"widgets","at":"yesterday"}]}"#, "at"),
                (#"{"reloads":[{"kind":"k","pushType":"widgets","at":"2024-01-01T12:99:00Z"}]}"#, "at"),
                (#"{"reloads":[{"kind":"k","pushType":"widgets","at":"2024-01-01T12:00:00+01:00"}]}"#, "at"),
                (#"{"reloads":[{"kind":"k","pushType":"widgets"}]}"#, "at"),
                (#"{"reloads":[{"kind":"k","pushType":"widgets","at":"2026-11-25T01:28:45Z","extra":1}]}"#, "extra"),
            ]
            for (json, field) in cases {
                let reply = try await harness.api.call(.post, path, key: app.serverKey, json: json)
                expectStatus(400, reply)
                let message = (reply.json?["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains(field), "\(json): \(message)")
            }
            // Another user's device may not report for this installation.
            let other = try await harness.api.call(.post, path, key: app.deviceToken(userId: "bob"), json: Self.body([(Self.door, "controls", Date())]))
            expectStatus(403, other)
        }
    }

    static func body(_ receipts: [(kind: String, type: String, at: Date)]) -> String {
        let list = receipts.map { #"{"kind":"\#($0.kind)","pushType":"\#($0.type)","at":"\#(SignalboxJSON.format($0.at))"}"# }
        return #"{"reloads":[\#(list.joined(separator: ","))]}"#
    }

    static func results(_ reply: APIClient.Reply) throws -> [ReloadResult] {
        try SignalboxJSON.makeDecoder().decode(ReloadsResponse.self, from: Data(reply.body.utf8)).reloads
    }
}
