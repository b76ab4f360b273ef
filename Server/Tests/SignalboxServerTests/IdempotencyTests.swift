import APNsSimulator
import Foundation
import HTTPTypes
import Testing

/// `Idempotency-Key` through the API: a retry answers the first answer and acts no more.
@Suite struct IdempotencyTests {
    static let door = "com.example.garage.door"
    static let event = #"{"target":{"controls":{"kinds":["com.example.garage.door"]}},"audience":{"all":true}}"#

    static func key(_ value: String) -> HTTPFields { [HTTPField.Name("Idempotency-Key")!: value] }

    @Test func aRetriedEventAnswersTheFirstEventIdAndAnotherBodyIsRefused() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let other = try await api.createApp(bundleId: "com.example.other")
            let path = "/v1/apps/\(app.id)/events"
            let first = try await api.call(.post, path, key: app.serverKey, json: Self.event, headers: Self.key("order-7"))
            expectStatus(202, first)
            #expect(first.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
            // The same request with its fields in another order and other spacing is the same request.
            let reordered = #"{ "audience": {"all": true}, "target": {"controls": {"kinds": ["com.example.garage.door"]}} }"#
            harness.advance(seconds: 3_600)
            let retry = try await api.call(.post, path, key: app.serverKey, json: reordered, headers: Self.key("order-7"))
            expectStatus(202, retry)
            #expect(retry.body == first.body, "the same eventId")
            #expect(retry.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            let different = try await api.call(.post, path, key: app.serverKey, json: #"{"target":{"controls":{}},"audience":{"all":true}}"#, headers: Self.key("order-7"))
            #expect(different.status == 422 && different.errorCode == "idempotency_key_reused", "\(different.body)")
            // Keys are per app, and another operation's request is another request.
            let elsewhere = try await api.call(.post, "/v1/apps/\(other.id)/events", key: other.serverKey, json: Self.event, headers: Self.key("order-7"))
            expectStatus(202, elsewhere)
            #expect(elsewhere.body != first.body)
            let push = try await api.call(.post, "/v1/apps/\(app.id)/pushes", key: app.serverKey, json: #"{"pushToken":"aa","pushType":"controls"}"#, headers: Self.key("order-7"))
            #expect(push.status == 422 && push.errorCode == "idempotency_key_reused", "\(push.body)")
            // A day later the key is free again.
            harness.advance(seconds: 86_400)
            let later = try await api.call(.post, path, key: app.serverKey, json: Self.event, headers: Self.key("order-7"))
            expectStatus(202, later)
            #expect(later.body != first.body)
        }
    }

    @Test(arguments: ["", "two words", String(repeating: "k", count: 256), "caf\u{e9}", "tab\there"])
    func aBadKeyIsA400(_ key: String) async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            for operation in ["events", "pushes"] {
                let body = operation == "events" ? Self.event : #"{"pushToken":"aa","pushType":"controls"}"#
                let reply = try await api.call(.post, "/v1/apps/\(app.id)/\(operation)", key: app.serverKey, json: body, headers: Self.key(key))
                #expect(reply.status == 400 && reply.errorCode == "invalid_idempotency_key", "\(operation): \(reply.body)")
            }
        }
    }

    @Test func aPushRefusedBeforeItWasSentLeavesItsKeyFree() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let path = "/v1/apps/\(app.id)/pushes"
            let bad = try await api.call(.post, path, key: app.serverKey, json: #"{"pushToken":"aa","pushType":"fileprovider"}"#, headers: Self.key("k1"))
            #expect(bad.status == 400 && bad.errorCode == "invalid_push", "\(bad.body)")
            // This harness has no APNs transport: 503, nothing sent, nothing kept.
            let good = try await api.call(.post, path, key: app.serverKey, json: #"{"pushToken":"aa","pushType":"controls"}"#, headers: Self.key("k1"))
            #expect(good.status == 503 && good.errorCode == "apns_unavailable", "\(good.body)")
            #expect(try await api.call(.post, path, key: app.serverKey, json: #"{"pushToken":"aa","pushType":"controls"}"#, headers: Self.key("k1")).status == 503)
        }
    }

    @Test func aRetriedPushIsSentOnceAndARetriedEventDeliveredOncePerToken() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            let path = "/v1/apps/\(app.id)/pushes"
            let push = #"{"pushToken":"c0ffee01","pushType":"controls"}"#
            let first = try await harness.api.call(.post, path, key: app.serverKey, json: push, headers: Self.key("push-1"))
            expectStatus(200, first)
            let retry = try await harness.api.call(.post, path, key: app.serverKey, json: push, headers: Self.key("push-1"))
            expectStatus(200, retry)
            #expect(retry.body == first.body, "the first push's apnsId")
            #expect(harness.acceptedTokens == ["c0ffee01": 1], "one push sent")

            try await harness.registerControls(app, installation: "phone", controls: [(Self.door, "north", "a001")])
            try await harness.registerControls(app, installation: "pad", controls: [(Self.door, "south", "b001"), ("com.example.light", "x", "b002")])
            let events = "/v1/apps/\(app.id)/events"
            let accepted = try await harness.api.call(.post, events, key: app.serverKey, json: Self.event, headers: Self.key("event-1"))
            let eventId = try #require(accepted.json?["eventId"] as? String)
            _ = try await harness.waitUntilDone(app, event: eventId)
            let again = try await harness.api.call(.post, events, key: app.serverKey, json: Self.event, headers: Self.key("event-1"))
            #expect(again.json?["eventId"] as? String == eventId)
            // An app's events are fanned out in order: once a later event is done, a duplicate would have been too.
            let later = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["com.example.light"]}},"audience":{"all":true}}"#)
            #expect(try await harness.waitUntilDone(app, event: later)["delivered"] as? Int == 1)
            #expect(harness.acceptedTokens == ["c0ffee01": 1, "a001": 1, "b001": 1, "b002": 1], "each token once")
        }
    }
}
