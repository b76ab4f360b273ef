import Foundation
import SignalboxAPI
import Testing

/// Registrations through the API: replace-set semantics, idempotence, leases.
struct RegistrationAPITests {
    @Test func fullRegistrationReadsBack() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let base = "/v1/apps/\(app.id)/installations/inst-1"
            let key = app.serverKey
            #expect(try await api.call(.put, base, key: key, json: #"{"userId":"u1","channels":["home:42","home:42"],"environment":"production"}"#).status == 204)
            #expect(try await api.call(.put, base + "/widgets", key: key, json: #"{"pushToken":"AABB","widgets":[{"kind":"Caffeine","family":"systemSmall","configuration":{"size":1}}]}"#).status == 204)
            #expect(try await api.call(.put, base + "/controls", key: key, json: #"{"controls":[{"kind":"door","configuration":{"door":"north"},"pushToken":"C0FFEE"},{"kind":"light","pushToken":"beef"}]}"#).status == 204)
            #expect(try await api.call(.put, base + "/file-provider", key: key, json: #"{"pushToken":"dd","domains":[{"id":"acct-7","replicated":true}]}"#).status == 204)
            #expect(try await api.call(.put, base + "/file-provider/domains/acct-7/enumerators/folder-1", key: key, json: #"{"leaseSeconds":60}"#).status == 200)
            let read = try await api.call(.get, base, key: key)
            #expect(read.status == 200)
            let json = try #require(read.json)
            #expect(json["userId"] as? String == "u1")
            #expect(json["channels"] as? [String] == ["home:42"])
            #expect(json["environment"] as? String == "production")
            let widgets = try #require(json["widgets"] as? [String: Any])
            #expect(widgets["pushToken"] as? String == "aabb")
            let controls = try #require(json["controls"] as? [[String: Any]])
            #expect(controls.map { $0["pushToken"] as? String } == ["c0ffee", "beef"])
            #expect((controls[0]["configuration"] as? [String: String]) == ["door": "north"])
            let fileProvider = try #require(json["fileProvider"] as? [String: Any])
            #expect((fileProvider["enumerators"] as? [[String: Any]])?.first?["container"] as? String == "folder-1")
        }
    }

    @Test func controlsAreReplacedAsASet() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let base = "/v1/apps/\(app.id)/installations/i"
            try await api.call(.put, base, key: app.serverKey, json: "{}")
            try await api.call(.put, base + "/controls", key: app.serverKey, json: #"{"controls":[{"kind":"a","pushToken":"01"},{"kind":"b","pushToken":"02"}]}"#)
            try await api.call(.put, base + "/controls", key: app.serverKey, json: #"{"controls":[{"kind":"b","pushToken":"02"}]}"#)
            let controls = try #require(try await api.call(.get, base, key: app.serverKey).json?["controls"] as? [[String: Any]])
            #expect(controls.map { $0["pushToken"] as? String } == ["02"])
        }
    }

    @Test func repeatedIdenticalPutChangesOnlyLastSeen() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let base = "/v1/apps/\(app.id)/installations/i"
            let writes = [
                ("", #"{"userId":"u","channels":["c"]}"#),
                ("/widgets", #"{"pushToken":"aa","widgets":[{"kind":"k","family":"f","configuration":{"b":1,"a":[true,null]}}]}"#),
                ("/controls", #"{"controls":[{"kind":"k","pushToken":"bb"}]}"#),
                ("/file-provider", #"{"pushToken":"cc","domains":[{"id":"d","replicated":false}]}"#),
            ]
            for (path, body) in writes { try await api.call(.put, base + path, key: app.serverKey, json: body) }
            var first = try #require(try await api.call(.get, base, key: app.serverKey).json)
            harness.advance(seconds: 5)
            for (path, body) in writes { #expect(try await api.call(.put, base + path, key: app.serverKey, json: body).status == 204) }
            var second = try #require(try await api.call(.get, base, key: app.serverKey).json)
            let seen = try [first.removeValue(forKey: "lastSeenAt"), second.removeValue(forKey: "lastSeenAt")].map {
                try #require(($0 as? String).flatMap(SignalboxJSON.parse), "lastSeenAt is an ISO 8601 date: \(String(describing: $0))")
            }
            #expect(NSDictionary(dictionary: first).isEqual(to: second))
            #expect(seen[1].timeIntervalSince(seen[0]) >= 4.9)
        }
    }

    @Test func enumeratorLeasesExpireRenewAndEnd() async throws {
        let harness = try await Harness.make { $0.defaultLeaseSeconds = 30 }
        try await harness.run { api in
            let app = try await api.createApp()
            let base = "/v1/apps/\(app.id)/installations/i"
            try await api.call(.put, base, key: app.serverKey, json: "{}")
            try await api.call(.put, base + "/file-provider", key: app.serverKey, json: #"{"pushToken":"cc","domains":[{"id":"d"}]}"#)
            let lease = base + "/file-provider/domains/d/enumerators/"
            #expect(try await api.call(.put, lease + "short", key: app.serverKey).status == 200)  // default 30 s
            #expect(try await api.call(.put, lease + "long", key: app.serverKey, json: #"{"leaseSeconds":120}"#).status == 200)
            #expect(try await api.call(.put, lease + "ended", key: app.serverKey).status == 200)
            #expect(try await api.call(.delete, lease + "ended", key: app.serverKey).status == 204)
            harness.advance(seconds: 60)
            let live = { () async throws -> [String] in
                let json = try #require(try await api.call(.get, base, key: app.serverKey).json)
                let enumerators = (json["fileProvider"] as? [String: Any])?["enumerators"] as? [[String: Any]] ?? []
                return enumerators.compactMap { $0["container"] as? String }
            }
            #expect(try await live() == ["long"])
            #expect(try await api.call(.put, lease + "short", key: app.serverKey).status == 200)  // renewed
            #expect(try await live() == ["long", "short"])
            #expect(try await harness.dependencies.stores.registry.deleteExpiredEnumerators(now: harness.dependencies.now().addingTimeInterval(90)) == 2)  // both ended by then
        }
    }

    @Test func registrationsNeedTheInstallationAndDomainFirst() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let base = "/v1/apps/\(app.id)/installations/i"
            let widgets = try await api.call(.put, base + "/widgets", key: app.serverKey, json: #"{"pushToken":"aa","widgets":[]}"#)
            #expect(widgets.status == 404)
            #expect(widgets.errorMessage?.contains("PUT it first") == true)
            try await api.call(.put, base, key: app.serverKey, json: "{}")
            #expect(try await api.call(.put, base + "/file-provider/domains/x/enumerators/c", key: app.serverKey).status == 404)
            #expect(try await api.call(.delete, base, key: app.serverKey).status == 204)
            #expect(try await api.call(.get, base, key: app.serverKey).status == 404)
        }
    }
}
