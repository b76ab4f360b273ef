import Foundation
import SignalboxServer
import SignalboxWebhooks
import Testing

/// Webhooks end to end: the live server (SQLite, APNs simulator) posting lifecycle events to a real HTTP receiver.
@Suite struct WebhookDeliveryTests {
    /// Creates an endpoint for `url` and returns its id and secret.
    static func createEndpoint(_ harness: DeliveryHarness, _ app: TestApp, url: String, types: [String]? = nil) async throws -> (id: String, secret: String) {
        let filter = types.map { ",\"eventTypes\":[" + $0.map { "\"\($0)\"" }.joined(separator: ",") + "]" } ?? ""
        let reply = try await harness.api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: #"{"url":"\#(url)"\#(filter)}"#)
        #expect(reply.status == 201, "\(reply.body)")
        let json = try #require(reply.json)
        return (try #require(json["id"] as? String), try #require(json["secret"] as? String))
    }

    /// The endpoint's status once `done` holds, or the last one read after 120 s. The receiver sees a delivery before
    /// the server records its answer, so a status read right after the receiver's wait can still count it as owed.
    static func endpointStatus(_ harness: DeliveryHarness, _ app: TestApp, _ endpoint: String, until done: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            let status = try #require(try await harness.api.call(.get, "/v1/apps/\(app.id)/webhooks/\(endpoint)", key: app.serverKey).json)
            if done(status) || ContinuousClock.now >= deadline { return status }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Quick back-off; private targets allowed, since the receiver listens on 127.0.0.1. The deadline is a bound only
    /// a hang reaches: a full run on 2 cores delays in-process answers by seconds, and an answer late past the
    /// deadline is a second delivery (at least once), which these tests count (docs/reliability.md).
    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.webhooks.allowPrivateTargets = true
        configuration.webhooks.retryBase = .milliseconds(50)
        configuration.webhooks.retryCap = .milliseconds(200)
        configuration.webhooks.requestTimeout = .seconds(60)
        configuration.webhooks.claimLease = .seconds(120)
    }

    @Test func eachLifecycleEventReachesTheReceiverSignedAndCanBeReplayed() async throws {
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            try await DeliveryHarness.run(configure: Self.configure) { harness in
                let app = try await harness.api.createApp()
                let (endpoint, secret) = try await Self.createEndpoint(harness, app, url: url)
                let dead = String(repeating: "d", count: 64), live = String(repeating: "a", count: 64)
                try await harness.registerControls(app, installation: "i1", controls: [("door", "1", live)])
                try await harness.registerControls(app, installation: "i2", controls: [("door", "1", dead)])
                harness.simulator.markUnregistered(token: dead, at: Date())
                let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["door"]}},"audience":{"all":true}}"#)
                #expect(try await harness.waitUntilDone(app, event: event)["state"] as? String == "done")
                // A reinstall of the same user registers i1's token again.
                try await harness.registerControls(app, installation: "i3", controls: [("door", "1", live)])
                let received = try await receiver.wait { Set($0.map(\.eventType)).isSuperset(of: ["token.pruned", "event.done", "token.moved"]) }
                #expect(Set(received.map(\.eventType)) == ["token.pruned", "event.done", "token.moved"])
                for delivery in received {
                    #expect(WebhookSignature.verify(header: delivery.signature, body: delivery.body, secret: secret, now: Date()), "\(delivery.signature)")
                    #expect(!WebhookSignature.verify(header: delivery.signature, body: delivery.body, secret: secret + "x", now: Date()))
                    #expect(delivery.json?["id"] as? String == delivery.eventId && delivery.json?["type"] as? String == delivery.eventType)
                }
                #expect(Set(received.map(\.eventId)).count == received.count, "each event delivered once")
                let done = try #require(received.first { $0.eventType == "event.done" }?.json?["data"] as? [String: Any])
                #expect(done["eventId"] as? String == event && done["delivered"] as? Int == 1 && done["pruned"] as? Int == 1)
                let prune = try #require(received.first { $0.eventType == "token.pruned" }?.json?["data"] as? [String: Any])
                #expect(prune["token"] as? String == dead && prune["apnsTimestamp"] is String)
                let move = try #require(received.first { $0.eventType == "token.moved" }?.json?["data"] as? [String: Any])
                #expect(move["fromInstallationId"] as? String == "i1" && move["toInstallationId"] as? String == "i3")

                // Replay: the same events in order, two pages, then nothing after the cursor.
                let first = try #require(try await harness.api.call(.get, "/v1/apps/\(app.id)/webhooks/events?limit=2", key: app.serverKey).json)
                let firstEvents = try #require(first["events"] as? [[String: Any]])
                let cursor = try #require(first["next"] as? String)
                let second = try #require(try await harness.api.call(.get, "/v1/apps/\(app.id)/webhooks/events?after=\(cursor)", key: Harness.adminKey).json)
                let replayed = (firstEvents + (second["events"] as? [[String: Any]] ?? [])).compactMap { $0["id"] as? String }
                #expect(Set(replayed) == Set(received.map(\.eventId)) && replayed == replayed.sorted())
                let last = try #require(second["next"] as? String)
                let after = try #require(try await harness.api.call(.get, "/v1/apps/\(app.id)/webhooks/events?after=\(last)", key: app.serverKey).json)
                #expect((after["events"] as? [Any])?.isEmpty == true && after["next"] as? String == last)

                let status = try await Self.endpointStatus(harness, app, endpoint) { $0["backlog"] as? Int == 0 }
                #expect(status["backlog"] as? Int == 0 && status["lastSuccessAt"] is String && status["secret"] == nil)
            }
        }
    }

    @Test func aFailingReceiverIsRetriedAndEachEventDeliveredOnceItRecovers() async throws {
        let receiver = WebhookReceiver(failFirst: 4, status: 503)
        try await receiver.serve { url in
            try await DeliveryHarness.run(configure: Self.configure) { harness in
                let app = try await harness.api.createApp()
                let (endpoint, _) = try await Self.createEndpoint(harness, app, url: url, types: ["event.done"])
                try await harness.registerControls(app, installation: "i1", controls: [("door", "1", String(repeating: "a", count: 64))])
                var events: [String] = []
                for door in 1...3 {
                    events.append(try await harness.post(app, event: #"{"target":{"controls":{"kinds":["door"],"configuration":{"door":"\#(door)"}}},"audience":{"all":true}}"#))
                }
                let received = try await receiver.wait { Set($0.filter { $0.answered == 200 }.map(\.eventId)).count >= 3 }
                let accepted = received.filter { $0.answered == 200 }
                #expect(received.count >= 7, "four refused attempts, then three accepted")
                #expect(accepted.count == 3 && Set(accepted.compactMap { ($0.json?["data"] as? [String: Any])?["eventId"] as? String }) == Set(events))
                // Once the backlog is empty nothing is left to send: the receiver holds each event once.
                let status = try await Self.endpointStatus(harness, app, endpoint) { $0["backlog"] as? Int == 0 }
                #expect(status["backlog"] as? Int == 0 && status["lastError"] as? String == "the endpoint answered HTTP 503")
                #expect(receiver.accepted.count == 3)
                #expect(status["lastSuccessAt"] is String && status["lastErrorAt"] is String)
            }
        }
    }

    @Test func aRotatedSecretSignsBesideTheOldOneDuringTheOverlap() async throws {
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            try await DeliveryHarness.run(configure: Self.configure) { harness in
                let app = try await harness.api.createApp()
                let (endpoint, old) = try await Self.createEndpoint(harness, app, url: url)
                let base = "/v1/apps/\(app.id)/webhooks/\(endpoint)"
                let rotated = try await harness.api.call(.post, base + "/secret", key: app.serverKey, json: #"{"overlapSeconds":3600}"#)
                #expect(rotated.status == 200, "\(rotated.body)")
                let new = try #require(rotated.json?["secret"] as? String)
                #expect(new != old && rotated.json?["previousSecretValidUntil"] is String)
                let test = try #require(try await harness.api.call(.post, base + "/test", key: app.serverKey).json)
                #expect(test["delivered"] as? Bool == true && test["status"] as? Int == 200)
                let during = try #require(receiver.deliveries.last)
                #expect(during.eventType == "webhook.test" && during.signature.components(separatedBy: "v1=").count == 3)
                #expect(WebhookSignature.verify(header: during.signature, body: during.body, secret: new, now: Date()))
                #expect(WebhookSignature.verify(header: during.signature, body: during.body, secret: old, now: Date()))
                // Without an overlap the previous secret stops at once.
                let newest = try #require(try await harness.api.call(.post, base + "/secret", key: Harness.adminKey, json: #"{"overlapSeconds":0}"#).json?["secret"] as? String)
                _ = try await harness.api.call(.post, base + "/test", key: app.serverKey)
                let after = try #require(receiver.deliveries.last)
                #expect(after.signature.components(separatedBy: "v1=").count == 2)
                #expect(WebhookSignature.verify(header: after.signature, body: after.body, secret: newest, now: Date()))
                #expect(!WebhookSignature.verify(header: after.signature, body: after.body, secret: new, now: Date()))
                // Test deliveries are not lifecycle events: nothing to replay.
                let events = try #require(try await harness.api.call(.get, "/v1/apps/\(app.id)/webhooks/events", key: app.serverKey).json)
                #expect((events["events"] as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test func aPauseAndTheResumptionAfterItAreReported() async throws {
        let receiver = WebhookReceiver()
        try await receiver.serve { url in
            try await DeliveryHarness.run(configure: { configuration in
                Self.configure(&configuration)
                configuration.delivery.credentialsPause = .milliseconds(500)
            }) { harness in
                let app = try await harness.api.createApp()
                _ = try await Self.createEndpoint(harness, app, url: url, types: ["app.paused", "app.resumed"])
                try await harness.registerControls(app, installation: "phone", controls: [("door", "north", "a001")])
                harness.simulator.script([.status(403, reason: "InvalidProviderToken")])
                let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["door"]}},"audience":{"all":true}}"#)
                #expect(try await harness.waitUntilDone(app, event: event)["delivered"] as? Int == 1)
                let received = try await receiver.wait { $0.count >= 2 }
                #expect(received.map(\.eventType) == ["app.paused", "app.resumed"] || Set(received.map(\.eventType)) == ["app.paused", "app.resumed"])
                #expect(received.count == 2, "one pause, one resumption")
                let paused = try #require(received.first { $0.eventType == "app.paused" }?.json?["data"] as? [String: Any])
                #expect(paused["reason"] as? String == "InvalidProviderToken" && paused["pausedUntil"] is String)
            }
        }
    }

    @Test func aDeadEndpointDoesNotDelayPushes() async throws {
        let silent = try await SilentPort.open()
        defer { Task { await silent.close() } }
        try await DeliveryHarness.run(configure: { configuration in
            Self.configure(&configuration)
            // The hung endpoint's requests end only after an hour: pushes that waited for them would not be done
            // within the test's limits, however fast or slow the run.
            configuration.webhooks.requestTimeout = .seconds(3600)
            configuration.webhooks.claimLease = .seconds(7200)
            configuration.webhooks.maxConcurrent = 2
        }) { harness in
            let app = try await harness.api.createApp()
            let (endpoint, _) = try await Self.createEndpoint(harness, app, url: "http://127.0.0.1:\(silent.port)/hook")
            let tokens = (0..<20).map { String(format: "%064x", $0 + 1) }
            for (index, token) in tokens.enumerated() {
                try await harness.registerControls(app, installation: "i\(index)", controls: [("door", "1", token)])
            }
            for _ in 1...5 {
                let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["door"]}},"audience":{"all":true}}"#)
                #expect(try await harness.waitUntilDone(app, event: event)["state"] as? String == "done")
            }
            #expect(harness.acceptedTokens.values.reduce(0, +) == 100)
            // All five are done while their webhooks are still owed (two hang in flight, the rest wait): the pushes
            // did not wait for the hung endpoint.
            let status = try #require(try await harness.api.call(.get, "/v1/apps/\(app.id)/webhooks/\(endpoint)", key: app.serverKey).json)
            #expect(status["backlog"] as? Int == 5 && status["lastSuccessAt"] == nil)
        }
        await silent.close()
    }
}
