import APNsSimulator
import Crypto
import Foundation
import SignalboxAPNs
import Testing

/// Replacing an app's APNs key without downtime, one key per environment, and the credential check.
@Suite struct CredentialTests {
    static let door = "com.example.garage.door"

    /// `(environment, good, reason)` of each result of a check.
    static func results(_ reply: APIClient.Reply) -> [String: (good: Bool, reason: String?, explanation: String)] {
        let results = (reply.json?["results"] as? [[String: Any]]) ?? []
        return Dictionary(uniqueKeysWithValues: results.map {
            ($0["environment"] as? String ?? "?", ($0["good"] as? Bool ?? false, $0["reason"] as? String, $0["explanation"] as? String ?? ""))
        })
    }

    @Test func theCheckProvesAGoodKeyAndExplainsEachRefusal() async throws {
        try await CredentialHarness.run { harness in
            let good = P256.Signing.PrivateKey()
            harness.trust(good, keyId: "KEY1234567")
            let app = try await harness.api.createApp(privateKey: good)
            let check = "/v1/apps/\(app.id)/apns-key/check"
            let stored = try await harness.api.call(.post, check, key: Harness.adminKey)
            expectStatus(200, stored)
            #expect(stored.json?["good"] as? Bool == true, "\(stored.body)")
            #expect(Self.results(stored)["sandbox"]?.reason == "BadDeviceToken" && Self.results(stored)["production"]?.reason == "BadDeviceToken")
            #expect(harness.sandbox.acceptedCount == 0 && harness.production.acceptedCount == 0, "nothing reached a device")

            // A key APNs does not know: wrong key id, team or file.
            let unknown = try await harness.api.call(.post, check, key: Harness.adminKey, json: keyBody(P256.Signing.PrivateKey(), keyId: "KEYUNKNOWN"))
            #expect(unknown.json?["good"] as? Bool == false)
            let refused = try #require(Self.results(unknown)["production"])
            #expect(refused.reason == "InvalidProviderToken" && refused.explanation.contains("key id"), "\(unknown.body)")

            // A key for sandbox only is good there and explained in production.
            let sandboxOnly = P256.Signing.PrivateKey()
            harness.trust(sandboxOnly, keyId: "KEYSANDBOX", environment: .sandbox)
            let split = Self.results(try await harness.api.call(.post, check, key: Harness.adminKey, json: keyBody(sandboxOnly, keyId: "KEYSANDBOX")))
            #expect(split["sandbox"]?.good == true)
            #expect(split["production"]?.reason == "BadEnvironmentKeyIdInToken" && split["production"]?.explanation.contains("environment") == true)

            // A key restricted to another app's topic.
            let otherTopic = P256.Signing.PrivateKey()
            harness.trust(otherTopic, keyId: "KEYOTHERAP", bundleIds: ["com.example.other"])
            let topic = Self.results(try await harness.api.call(.post, check, key: Harness.adminKey, json: keyBody(otherTopic, keyId: "KEYOTHERAP", environment: "sandbox")))
            #expect(topic.keys.sorted() == ["sandbox"], "one environment asked, one checked")
            #expect(topic["sandbox"]?.reason == "TopicDisallowed")

            // Bad input and the wrong credential.
            let half = try await harness.api.call(.post, check, key: Harness.adminKey, json: #"{"keyId":"KEY1234567"}"#)
            #expect(half.status == 400 && half.errorCode == "invalid_field", "\(half.body)")
            #expect(try await harness.api.call(.post, check, key: app.serverKey).status == 403)
            #expect(try await harness.api.call(.post, "/v1/apps/nope/apns-key/check", key: Harness.adminKey).status == 404)
        }
    }

    @Test func aReplacedKeySignsTheNextPushesWhileAPushInFlightFinishes() async throws {
        try await CredentialHarness.run { harness in
            let old = P256.Signing.PrivateKey(), new = P256.Signing.PrivateKey()
            harness.trust(old, keyId: "KEYOLD0001")
            harness.trust(new, keyId: "KEYNEW0001")
            let app = try await harness.api.createApp(privateKey: old, keyId: "KEYOLD0001")
            let pushes = "/v1/apps/\(app.id)/pushes"
            let push = #"{"pushToken":"c0ffee01","pushType":"controls","environment":"production"}"#
            // The first push is held by APNs while the key is replaced.
            harness.production.script([.latency(.milliseconds(700))])
            async let inFlight = harness.api.call(.post, pushes, key: app.serverKey, json: push)
            // Until the push's request has reached APNs (signed with the old key): an accepted connection alone does
            // not say it was signed yet. The limit is for a hang.
            let deadline = ContinuousClock.now + .seconds(120)
            while harness.production.stats.maxConcurrentStreamsObserved == 0 {
                try #require(ContinuousClock.now < deadline, "the first push never reached APNs")
                try await Task.sleep(for: .milliseconds(5))
            }
            let replaced = try await harness.api.call(.put, "/v1/apps/\(app.id)/apns-key", key: Harness.adminKey, json: keyBody(new, keyId: "KEYNEW0001"))
            expectStatus(200, replaced)
            let keys = (replaced.json?["keys"] as? [[String: Any]]) ?? []
            #expect(keys.map { $0["keyId"] as? String } == ["KEYNEW0001", "KEYNEW0001"], "\(replaced.body)")
            expectStatus(200, try await inFlight)
            expectStatus(200, try await harness.api.call(.post, pushes, key: app.serverKey, json: push))
            #expect(harness.production.acceptedPushes.map(\.keyId) == ["KEYOLD0001", "KEYNEW0001"], "the held push finished with the old key, the next used the new one")

            // Events after the change are signed with the new key too.
            try await registerControl(harness, app, token: "a001")
            let event = try await harness.api.call(.post, "/v1/apps/\(app.id)/events", key: app.serverKey, json: #"{"target":{"controls":{}},"audience":{"all":true}}"#)
            expectStatus(202, event)
            #expect(await harness.sandbox.waitForAccepted(count: 1, timeout: .seconds(120)))
            #expect(harness.sandbox.acceptedPushes.map(\.keyId) == ["KEYNEW0001"])
        }
    }

    @Test func oneKeyPerEnvironmentAndBackToOneKeyForBoth() async throws {
        try await CredentialHarness.run { harness in
            let shared = P256.Signing.PrivateKey(), sandboxKey = P256.Signing.PrivateKey()
            harness.trust(shared, keyId: "KEYSHARED1")
            harness.trust(sandboxKey, keyId: "KEYSANDBOX", environment: .sandbox)
            let app = try await harness.api.createApp(privateKey: shared, keyId: "KEYSHARED1")
            let path = "/v1/apps/\(app.id)/apns-key"
            let put = try await harness.api.call(.put, path, key: Harness.adminKey, json: keyBody(sandboxKey, keyId: "KEYSANDBOX", environment: "sandbox"))
            expectStatus(200, put)
            let listed = try #require(try await harness.api.call(.get, path, key: Harness.adminKey).json?["keys"] as? [[String: Any]])
            #expect(listed.map { "\($0["environment"] ?? "nil"):\($0["keyId"] ?? "nil"):\($0["environmentOnly"] ?? "nil")" } == ["sandbox:KEYSANDBOX:1", "production:KEYSHARED1:0"])
            #expect(!put.body.contains("PRIVATE KEY"), "the key is never shown")
            let check = try await harness.api.call(.post, path + "/check", key: Harness.adminKey)
            #expect(check.json?["good"] as? Bool == true, "\(check.body)")
            for environment in ["sandbox", "production"] {
                expectStatus(200, try await harness.api.call(.post, "/v1/apps/\(app.id)/pushes", key: app.serverKey,
                                                            json: #"{"pushToken":"c0ffee01","pushType":"controls","environment":"\#(environment)"}"#))
            }
            #expect(harness.sandbox.acceptedPushes.map(\.keyId) == ["KEYSANDBOX"])
            #expect(harness.production.acceptedPushes.map(\.keyId) == ["KEYSHARED1"])
            // A key for both environments replaces the sandbox-only one.
            expectStatus(200, try await harness.api.call(.put, path, key: Harness.adminKey, json: keyBody(shared, keyId: "KEYSHARED1")))
            let after = try #require(try await harness.api.call(.get, path, key: Harness.adminKey).json?["keys"] as? [[String: Any]])
            #expect(after.allSatisfy { $0["keyId"] as? String == "KEYSHARED1" && $0["environmentOnly"] as? Bool == false })
            // Bad bodies are named and change nothing.
            let bad = try await harness.api.call(.put, path, key: Harness.adminKey, json: keyBody(sandboxKey, keyId: "KEYSANDBOX", environment: "staging"))
            #expect(bad.status == 400 && bad.errorMessage?.hasPrefix("environment") == true, "\(bad.body)")
            let noKey = try await harness.api.call(.put, path, key: Harness.adminKey, json: #"{"environment":"sandbox"}"#)
            #expect(noKey.status == 400 && noKey.errorMessage?.hasPrefix("privateKey") == true, "\(noKey.body)")
            #expect(try await harness.api.call(.put, path, key: app.serverKey, json: keyBody(shared, keyId: "KEYSHARED1")).status == 403)
        }
    }

    @Test func theAppPageChecksTheCredentialsForTheAdmin() async throws {
        try await CredentialHarness.run { harness in
            let good = P256.Signing.PrivateKey()
            harness.trust(good, keyId: "KEYSANDBOX", environment: .sandbox)
            let app = try await harness.api.createApp(privateKey: good, keyId: "KEYSANDBOX")
            var admin = DashboardTests.Browser(client: harness.api.client)
            _ = try await admin.signIn(Harness.adminKey)
            let overview = try await admin.get("/dashboard/apps/\(app.id)")
            #expect(overview.body.contains("Check APNs credentials"))
            let checked = try await admin.post("/dashboard/apps/\(app.id)/check", form: ["csrf": try #require(overview.csrf)])
            #expect(checked.status == 200)
            #expect(checked.body.contains("sandbox: good") && checked.body.contains("production: not good"), "\(checked.body)")
            #expect(checked.body.contains("restricted to the other environment"))
            // A server-key session sees no button and may not check.
            var owner = DashboardTests.Browser(client: harness.api.client)
            _ = try await owner.signIn(app.serverKey)
            let page = try await owner.get("/dashboard/apps/\(app.id)")
            #expect(!page.body.contains("Check APNs credentials"))
            #expect(try await owner.post("/dashboard/apps/\(app.id)/check", form: ["csrf": try #require(page.csrf)]).status == 403)
            #expect(try await admin.post("/dashboard/apps/\(app.id)/check", form: ["csrf": "forged"]).status == 403)
        }
    }

    private func registerControl(_ harness: CredentialHarness, _ app: TestApp, token: String) async throws {
        let base = "/v1/apps/\(app.id)/installations/phone"
        expectStatus(204, try await harness.api.call(.put, base, key: app.serverKey, json: #"{"userId":"u1","channels":[],"environment":"sandbox"}"#))
        expectStatus(204, try await harness.api.call(.put, base + "/controls", key: app.serverKey,
                                                     json: #"{"controls":[{"kind":"\#(Self.door)","pushToken":"\#(token)"}]}"#))
    }
}

/// The plain-words reading of each answer to the probe push.
@Suite struct CredentialVerdictTests {
    @Test(arguments: [
        (400, "BadDeviceToken", true), (403, "InvalidProviderToken", false), (403, "BadEnvironmentKeyIdInToken", false),
        (403, "ExpiredProviderToken", false), (400, "TopicDisallowed", false), (403, "UnrelatedKeyIdInToken", false),
        (503, "ServiceUnavailable", false), (400, "SomethingNew", false),
    ])
    func eachAnswerIsExplained(status: Int, reason: String, good: Bool) {
        let verdict = CredentialCheck.verdict(status: status, reason: APNsReason(rawValue: reason))
        #expect(verdict.good == good)
        #expect(verdict.explanation.count > 40, "\(reason): \(verdict.explanation)")
    }
}
