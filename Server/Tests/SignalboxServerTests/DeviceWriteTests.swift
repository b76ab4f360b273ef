import Configuration
import Foundation
import SignalboxServer
import SignalboxStore
import Testing

/// What a device may write with its JWT: channels its backend vouched for, and at most so many installations
/// and enumerators (design.md "Security"). The server key is limited by neither.
struct DeviceWriteTests {
    @Test func deviceChannelsMustBeInTheTokensChannelsClaim() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let now = harness.clock.now
            let base = "/v1/apps/\(app.id)/installations/i1"
            let vouched = try await app.sign(app.claims(now: now, channels: ["home:42", "team:7"]))
            #expect(try await api.call(.put, base, key: vouched, json: #"{"channels":["home:42"]}"#).status == 204)
            #expect(try await api.call(.put, base, key: vouched, json: #"{"channels":["team:7","home:42"]}"#).status == 204)
            let refused = try await api.call(.put, base, key: vouched, json: #"{"channels":["home:42","home:43"]}"#)
            #expect(refused.status == 403)
            #expect(refused.errorCode == "channel_not_allowed")
            // Without the claim a device may put no channel at all.
            let bare = try await app.sign(app.claims(now: now))
            #expect(try await api.call(.put, base, key: bare, json: #"{"channels":["home:42"]}"#).errorCode == "channel_not_allowed")
            #expect(try await api.call(.put, base, key: bare, json: #"{"channels":[]}"#).status == 204)
            // The refused write changed nothing; the server key sets any channels.
            #expect(try await api.call(.get, base, key: app.serverKey).json?["channels"] as? [String] == [])
            #expect(try await api.call(.put, base, key: app.serverKey, json: #"{"userId":"u1","channels":["anything","home:43"]}"#).status == 204)
            #expect(try await api.call(.get, base, key: app.serverKey).json?["channels"] as? [String] == ["anything", "home:43"])
        }
    }

    @Test func channelsClaimMustBeAnArrayOfStrings() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let exp = Int(harness.clock.now.timeIntervalSince1970) + 600
            // Hand-made claims: `channels` a string.
            let claims = #"{"sub":"u1","aud":"\#(app.id)","exp":\#(exp),"channels":"home:42"}"#
            let token = app.rawToken(claims: claims)
            let reply = try await api.call(.put, "/v1/apps/\(app.id)/installations/i1", key: token, json: #"{"channels":["home:42"]}"#)
            #expect(reply.status == 401)
            #expect(reply.errorCode == "invalid_token")
        }
    }

    @Test func aUserGetsAtMostTwentyInstallationsFromDevices() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let token = try await app.sign(app.claims(now: harness.clock.now))
            let base = "/v1/apps/\(app.id)/installations/"
            for index in 1...20 {
                #expect(try await api.call(.put, base + "i\(index)", key: token, json: "{}").status == 204)
            }
            let refused = try await api.call(.put, base + "i21", key: token, json: "{}")
            #expect(refused.status == 403)
            #expect(refused.errorCode == "quota_exceeded")
            #expect(try await api.call(.get, base + "i21", key: app.serverKey).status == 404)
            // Updating one of the twenty is fine; another user has a quota of their own.
            #expect(try await api.call(.put, base + "i3", key: token, json: "{}").status == 204)
            let other = try await app.sign(app.claims(userId: "u2", now: harness.clock.now))
            #expect(try await api.call(.put, base + "j1", key: other, json: "{}").status == 204)
            // The server key is not limited; after a delete the device may add one again.
            #expect(try await api.call(.put, base + "s21", key: app.serverKey, json: #"{"userId":"u1"}"#).status == 204)
            #expect(try await api.call(.delete, base + "s21", key: token).status == 204)
            #expect(try await api.call(.delete, base + "i1", key: token).status == 204)
            #expect(try await api.call(.put, base + "i21", key: token, json: "{}").status == 204)
        }
    }

    @Test func concurrentDeviceWritesCannotPassTheInstallationQuota() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let token = try await app.sign(app.claims(now: harness.clock.now))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 1...40 {
                    group.addTask { try await api.call(.put, "/v1/apps/\(app.id)/installations/c\(index)", key: token, json: "{}").status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 204 }.count == 20)
            #expect(statuses.filter { $0 == 403 }.count == 20)
        }
    }

    @Test func anInstallationGetsAtMost256LiveEnumeratorsFromDevices() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let token = try await app.sign(app.claims(now: harness.clock.now))
            let base = "/v1/apps/\(app.id)/installations/i1"
            #expect(try await api.call(.put, base, key: token, json: "{}").status == 204)
            #expect(try await api.call(.put, base + "/file-provider", key: token, json: #"{"pushToken":"c0ffee","domains":[{"id":"d","replicated":false}]}"#).status == 204)
            let enumerators = base + "/file-provider/domains/d/enumerators/"
            for index in 1...256 {
                let status = try await api.call(.put, enumerators + "f\(index)", key: token, json: #"{"leaseSeconds":600}"#).status
                #expect(status == 200, "enumerator \(index)")
            }
            let refused = try await api.call(.put, enumerators + "f257", key: token, json: #"{"leaseSeconds":600}"#)
            #expect(refused.status == 403)
            #expect(refused.errorCode == "quota_exceeded")
            // Renewing a live one is fine; the server key is not limited.
            #expect(try await api.call(.put, enumerators + "f5", key: token, json: #"{"leaseSeconds":600}"#).status == 200)
            #expect(try await api.call(.put, enumerators + "f257", key: app.serverKey, json: #"{"leaseSeconds":600}"#).status == 200)
            // Expired leases do not count.
            harness.advance(seconds: 601)
            #expect(try await api.call(.put, enumerators + "f258", key: token, json: #"{"leaseSeconds":600}"#).status == 200)
        }
    }

    @Test func quotasAreConfigurable() async throws {
        let environment = ConfigEnvironment.provider(
            environment: ["SIGNALBOX_MAX_INSTALLATIONS_PER_USER": "2", "SIGNALBOX_MAX_ENUMERATORS_PER_INSTALLATION": "7"]
        )
        let problems = ConfigProblems()
        let configuration = try ServerConfiguration(reader: ConfigReader(provider: environment, accessReporter: problems), problems: problems)
        #expect(configuration.quotas.installationsPerUser == 2)
        #expect(configuration.quotas.enumeratorsPerInstallation == 7)
        let harness = try await Harness.make { $0.quotas.installationsPerUser = 2 }
        try await harness.run { api in
            let app = try await api.createApp()
            let token = try await app.sign(app.claims(now: harness.clock.now))
            let base = "/v1/apps/\(app.id)/installations/"
            #expect(try await api.call(.put, base + "a", key: token, json: "{}").status == 204)
            #expect(try await api.call(.put, base + "b", key: token, json: "{}").status == 204)
            #expect(try await api.call(.put, base + "c", key: token, json: "{}").errorCode == "quota_exceeded")
        }
    }

    /// A credential of the wrong shape is refused 401 before storage is touched: with storage closed, such
    /// credentials still get their 401, while a well-shaped unknown server key reaches storage (and fails).
    @Test func wrongShapesAreRefusedWithoutStorage() async throws {
        let harness = try await Harness.make()
        try await harness.run { api in
            let app = try await api.createApp()
            let path = "/v1/apps/\(app.id)/installations/i1"
            let token = try await app.sign(app.claims(now: harness.clock.now))
            try await harness.database.close()
            let wellShapedKey = "sbk_" + String(repeating: "A", count: 43)
            #expect(try await api.call(.put, path, key: wellShapedKey, json: "{}").status >= 500)
            let shapes = [
                "sbk_not-a-key", "sbk_" + String(repeating: "A", count: 42), "sbk_" + String(repeating: "A", count: 44),
                "sbk_" + String(repeating: "A", count: 42) + "=", "xyz_" + String(repeating: "A", count: 43), "garbage",
                "a.b", "a.b.c.d", "..", "a!.b.c", token + "=", String(token.dropLast()) + "~",
            ]
            for credential in shapes {
                let reply = try await api.call(.put, path, key: credential, json: "{}")
                #expect(reply.status == 401, "\(credential): \(reply.body)")
            }
            // Header and claims are judged before storage too: another algorithm, another audience.
            #expect(try await api.call(.put, path, key: try await app.sign(app.claims(now: harness.clock.now), alg: "none"), json: "{}").status == 401)
            var elsewhere = app.claims(now: harness.clock.now)
            elsewhere.aud = .one("another-app")
            #expect(try await api.call(.put, path, key: try await app.sign(elsewhere), json: "{}").status == 403)
        }
    }
}
