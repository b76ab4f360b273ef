import Foundation
import Testing

/// `/v1/apps/{appId}/webhooks` through the router: who may call it, what it refuses, and that a secret is shown once.
struct WebhookAPITests {
    static let create = #"{"url":"https://hooks.example.com/signalbox","eventTypes":["token.pruned","event.done"]}"#

    @Test(arguments: [
        (AuthMatrixTests.Caller.none, 401), (.garbage, 401), (.admin, 201), (.ownServerKey, 201), (.otherServerKey, 403),
        (.ownDeviceOwnUser, 403), (.forgedDevice, 401),
    ])
    func whoMayCreate(_ caller: AuthMatrixTests.Caller, _ status: Int) async throws {
        let harness = try await Harness.make()
        let clock = harness.clock
        try await harness.run { api in
            let own = try await api.createApp()
            let other = try await api.createApp(bundleId: "com.example.other")
            let key = AuthMatrixTests().credential(caller, own: own, other: other, now: clock.now)
            let reply = try await api.call(.post, "/v1/apps/\(own.id)/webhooks", key: key, json: Self.create)
            #expect(reply.status == status, "\(caller): \(reply.body)")
            if status >= 400 { #expect(reply.errorCode != nil) }
        }
    }

    @Test func theSecretIsShownOnceAndEndpointsListWithTheirStatus() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let created = try await api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: Self.create)
            #expect(created.status == 201, "\(created.body)")
            let json = try #require(created.json)
            let id = try #require(json["id"] as? String), secret = try #require(json["secret"] as? String)
            #expect(secret.hasPrefix("whsec_") && json["eventTypes"] as? [String] == ["token.pruned", "event.done"] && json["backlog"] as? Int == 0)
            let schema = OpenAPIDocumentTests.schema("WebhookEndpoint")
            #expect(Set(json.keys).isSubset(of: OpenAPIDocumentTests.properties(schema)))
            #expect(Set(schema["required"] as? [String] ?? []).isSubset(of: json.keys))
            let list = try await api.call(.get, "/v1/apps/\(app.id)/webhooks", key: Harness.adminKey)
            #expect(list.status == 200 && !list.body.contains(secret))
            let endpoints = try #require(list.json?["endpoints"] as? [[String: Any]])
            #expect(endpoints.map { $0["id"] as? String } == [id])
            let one = try await api.call(.get, "/v1/apps/\(app.id)/webhooks/\(id)", key: app.serverKey)
            #expect(one.status == 200 && !one.body.contains(secret) && one.json?["url"] as? String == "https://hooks.example.com/signalbox")
            #expect(try await api.call(.delete, "/v1/apps/\(app.id)/webhooks/\(id)", key: app.serverKey).status == 204)
            #expect(try await api.call(.delete, "/v1/apps/\(app.id)/webhooks/\(id)", key: app.serverKey).status == 404)
            #expect(try await api.call(.post, "/v1/apps/\(app.id)/webhooks/\(id)/test", key: app.serverKey).status == 404)
            #expect(try await api.call(.get, "/v1/apps/nope/webhooks", key: Harness.adminKey).status == 404)
        }
    }

    @Test(arguments: [
        #"{"url":"ftp://example.com/x"}"#, #"{"url":"https://user:pw@example.com/x"}"#, #"{"url":"example.com/x"}"#,
        #"{"url":"https:///nohost"}"#, #"{"url":"https://example.com/a b"}"#, #"{"url":""}"#,
        #"{"url":"https://example.com/x","eventTypes":["token.exploded"]}"#, #"{"url":"https://example.com/x","eventTypes":["webhook.test"]}"#,
        #"{"url":42}"#, #"{}"#, #"{"url":"https://example.com/x","extra":1}"#,
    ])
    func badEndpointsAreRefused(_ body: String) async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let reply = try await api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: body)
            #expect(reply.status == 400, "\(body): \(reply.body)")
            #expect(reply.errorCode != nil && !reply.body.contains("pw@"))
        }
    }

    @Test func badRotationsAndCursorsAreRefused() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let id = try #require(try await api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: Self.create).json?["id"] as? String)
            let base = "/v1/apps/\(app.id)/webhooks"
            #expect(try await api.call(.post, base + "/\(id)/secret", key: app.serverKey, json: #"{"overlapSeconds":-1}"#).status == 400)
            #expect(try await api.call(.post, base + "/\(id)/secret", key: app.serverKey, json: #"{"overlapSeconds":999999999}"#).status == 400)
            #expect(try await api.call(.post, base + "/whk_nope/secret", key: app.serverKey).status == 404)
            #expect(try await api.call(.get, base + "/events?after=nope", key: app.serverKey).status == 400)
            #expect(try await api.call(.get, base + "/events?limit=0", key: app.serverKey).status == 400)
            #expect(try await api.call(.get, base + "/events?cursor=x", key: app.serverKey).status == 400)
            let events = try await api.call(.get, base + "/events", key: app.serverKey)
            #expect(events.status == 200 && (events.json?["events"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func tooManyEndpointsAreRefused() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            for _ in 0..<10 {
                #expect(try await api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: Self.create).status == 201)
            }
            let refused = try await api.call(.post, "/v1/apps/\(app.id)/webhooks", key: app.serverKey, json: Self.create)
            #expect(refused.status == 409 && refused.errorCode == "too_many_webhooks")
        }
    }
}
