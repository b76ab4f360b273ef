import APNsSimulator
import Crypto
import Foundation
import Testing

/// Events through the real API, SQLite, fan-out, dispatcher, HTTP/2 + TLS, to the simulator.
@Suite struct DeliveryTests {
    static let door = "com.example.garage.door"

    @Test func controlsEventPushesEveryMatchingControlTokenOnce() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", controls: [(Self.door, "north", "a001"), (Self.door, "south", "a002")])
            try await harness.registerControls(app, installation: "pad", controls: [(Self.door, "north", "b001"), ("com.example.light", "north", "b002")])
            try await harness.registerControls(app, installation: "elsewhere", channels: ["home:7"], controls: [(Self.door, "north", "c001")])
            let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["\#(Self.door)"],"configuration":{"door":"north"}}},"audience":{"channels":["home:42"]}}"#)
            let status = try await harness.waitUntilDone(app, event: event)
            #expect(status["state"] as? String == "done")
            #expect(status["matched"] as? Int == 2)
            #expect(status["delivered"] as? Int == 2)
            #expect(harness.acceptedTokens == ["a001": 1, "b001": 1])
            let push = try #require(harness.simulator.acceptedPushes.first)
            #expect(push.topic == "com.example.garage.push-type.controls")
            #expect(push.pushType == "controls" && push.priority == 10 && push.expiration == "0")
            #expect(push.payload == #"{"aps":{"content-changed":true}}"#)
        }
    }

    @Test func widgetsEventSendsOnePushPerInstallationWithAMatchingWidget() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            let widgets = [
                ("w1", "u1", #"[{"kind":"Caffeine","family":"systemSmall","configuration":{}},{"kind":"Caffeine","family":"systemLarge","configuration":{}}]"#),
                ("w2", "u1", #"[{"kind":"Weather","family":"systemSmall","configuration":{}}]"#),
                ("w3", "u2", #"[{"kind":"Caffeine","family":"systemSmall","configuration":{}}]"#),
            ]
            for (index, (installation, user, list)) in widgets.enumerated() {
                let base = "/v1/apps/\(app.id)/installations/\(installation)"
                expectStatus(204, try await harness.api.call(.put, base, key: app.serverKey, json: #"{"userId":"\#(user)","channels":[]}"#))
                expectStatus(204, try await harness.api.call(.put, base + "/widgets", key: app.serverKey, json: #"{"pushToken":"e00\#(index)","widgets":\#(list)}"#))
            }
            let event = try await harness.post(app, event: #"{"target":{"widgets":{"kinds":["Caffeine"]}},"audience":{"users":["u1"]}}"#)
            let status = try await harness.waitUntilDone(app, event: event)
            #expect(status["delivered"] as? Int == 1)
            #expect(harness.acceptedTokens == ["e000": 1])
            #expect(harness.simulator.acceptedPushes.first?.topic == "com.example.garage.push-type.widgets")
            #expect(harness.simulator.acceptedPushes.first?.priority == nil)
        }
    }

    @Test func fileProviderPushesWorkingSetAlwaysOtherContainersOnlyWithALiveEnumerator() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            let registrations = [("plain", "f001", false), ("watching", "f002", false), ("replicated", "f003", true)]
            for (installation, token, replicated) in registrations {
                let base = "/v1/apps/\(app.id)/installations/\(installation)"
                expectStatus(204, try await harness.api.call(.put, base, key: app.serverKey, json: #"{"channels":["team"]}"#))
                expectStatus(204, try await harness.api.call(.put, base + "/file-provider", key: app.serverKey, json: #"{"pushToken":"\#(token)","domains":[{"id":"acct-7","replicated":\#(replicated)}]}"#))
            }
            let lease = "/v1/apps/\(app.id)/installations/watching/file-provider/domains/acct-7/enumerators/folder-1"
            expectStatus(200, try await harness.api.call(.put, lease, key: app.serverKey, json: #"{"leaseSeconds":600}"#))

            let folder = try await harness.post(app, event: #"{"target":{"fileProvider":{"domain":"acct-7","container":"folder-1"}},"audience":{"all":true}}"#)
            #expect(try await harness.waitUntilDone(app, event: folder)["delivered"] as? Int == 2)
            let payloads = Dictionary(uniqueKeysWithValues: harness.simulator.acceptedPushes.map { ($0.token, $0.payload) })
            #expect(payloads == [
                "f002": #"{"container-identifier":"folder-1","domain":"acct-7"}"#,
                "f003": #"{"container-identifier":"NSFileProviderWorkingSetContainerItemIdentifier","domain":"acct-7"}"#,
            ])
            #expect(harness.simulator.acceptedPushes.allSatisfy { $0.topic == "com.example.garage.pushkit.fileprovider" && $0.priority == 5 })

            harness.simulator.reset()
            let workingSet = try await harness.post(app, event: #"{"target":{"fileProvider":{"domain":"acct-7","container":"NSFileProviderWorkingSetContainerItemIdentifier"}},"audience":{"channels":["team"]}}"#)
            #expect(try await harness.waitUntilDone(app, event: workingSet)["delivered"] as? Int == 3)
            #expect(Set(harness.acceptedTokens.keys) == ["f001", "f002", "f003"])
        }
    }

    @Test func anEventArrivingWhileAPushIsPendingIsAbsorbedIntoIt() async throws {
        try await DeliveryHarness.run(configure: {
            // A wide window: under the parallel suite's load the second event's fan-out can come tens of seconds after
            // the retry is recorded; the retry (60–120 s after it, with jitter) must still be pending then.
            $0.delivery.retryBase = .seconds(120)
            $0.delivery.retryCap = .seconds(120)
        }) { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", controls: [(Self.door, "north", "a001")])
            // The first attempt fails, so the push waits 60–120 s as pending for its retry.
            harness.simulator.script([.status(500, reason: "InternalServerError")])
            let body = #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#
            let first = try await harness.post(app, event: body)
            // Until the 500 is recorded (its retry line is written with the push's return to pending): an event
            // posted before that finds the push still `sending` and is sent on its own.
            func retryRecorded() async throws -> Bool {
                let lines = try await harness.api.call(.get, "/v1/apps/\(app.id)/tokens/a001", key: app.serverKey).json?["deliveries"]
                return (lines as? [[String: Any]])?.contains { $0["outcome"] as? String == "retry" } == true
            }
            try await harness.waitFor("the retry line") { try await retryRecorded() ? true : nil }
            let second = try await harness.post(app, event: body)
            // The retry alone takes up to 120 s: the limit covers it with room for a loaded run.
            let firstStatus = try await harness.waitUntilDone(app, event: first, timeout: .seconds(300))
            let secondStatus = try await harness.waitUntilDone(app, event: second)
            #expect(secondStatus["coalesced"] as? Int == 1)
            #expect(firstStatus["delivered"] as? Int == 1 && secondStatus["delivered"] as? Int == 1)
            #expect(harness.acceptedTokens == ["a001": 1])
        }
    }

    @Test func aMinimumIntervalHoldsTheNextPushAndAbsorbsEventsMeanwhile() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            let settings = "/v1/apps/\(app.id)/delivery"
            let rejected = try await harness.api.call(.put, settings, key: Harness.adminKey, json: #"{"minimumIntervalSeconds":{"voip":5}}"#)
            #expect(rejected.status == 400 && rejected.errorCode == "invalid_field")
            // Widgets held for an hour, so an event posted meanwhile is absorbed however slowly this run goes; controls
            // held for two seconds, to see a held push go out once its interval has passed.
            let saved = try await harness.api.call(.put, settings, key: Harness.adminKey, json: #"{"minimumIntervalSeconds":{"widgets":3600,"controls":2}}"#)
            #expect((saved.json?["minimumIntervalSeconds"] as? [String: Int]) == ["widgets": 3600, "controls": 2, "fileprovider": 0])
            let base = "/v1/apps/\(app.id)/installations/w1"
            expectStatus(204, try await harness.api.call(.put, base, key: app.serverKey, json: #"{"channels":[]}"#))
            expectStatus(204, try await harness.api.call(.put, base + "/widgets", key: app.serverKey, json: #"{"pushToken":"e001","widgets":[{"kind":"Caffeine","family":"systemSmall","configuration":{}}]}"#))
            try await harness.registerControls(app, installation: "c1", controls: [(Self.door, "north", "a001")])
            let widgets = #"{"target":{"widgets":{"kinds":["Caffeine"]}},"audience":{"all":true}}"#

            _ = try await harness.waitUntilDone(app, event: try await harness.post(app, event: widgets))
            let held = try await harness.post(app, event: widgets)
            // Conditions that stay, not pauses: the held event's push is planned, then the next event is absorbed by it.
            func status(_ event: String) async throws -> [String: Any] {
                try await harness.api.call(.get, "/v1/apps/\(app.id)/events/\(event)", key: app.serverKey).json ?? [:]
            }
            try await harness.waitFor("the held push to be planned") { try await status(held)["matched"] as? Int == 1 ? true : nil }
            let absorbed = try await harness.post(app, event: widgets)
            try await harness.waitFor("the next event to be absorbed") { try await status(absorbed)["coalesced"] as? Int == 1 ? true : nil }
            #expect(try await status(held)["state"] as? String != "done")

            let controls = #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#
            #expect(try await harness.waitUntilDone(app, event: try await harness.post(app, event: controls))["delivered"] as? Int == 1)
            #expect(try await harness.waitUntilDone(app, event: try await harness.post(app, event: controls))["delivered"] as? Int == 1)
            #expect(harness.acceptedTokens == ["e001": 1, "a001": 2], "the held widget push waits for its hour")
            let controlPushes = harness.simulator.acceptedPushes.filter { $0.token == "a001" }.map(\.receivedAt)
            #expect(controlPushes.count == 2 && controlPushes[1].timeIntervalSince(controlPushes[0]) >= 1.9)
        }
    }

    @Test func a410PrunesOnlyATokenRegisteredBeforeAPNsTimestamp() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", controls: [(Self.door, "north", "a001")])
            let body = #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"installations":["phone"]}}"#

            // APNs learned of the token's end before the app registered it again: keep it.
            harness.simulator.markUnregistered(token: "a001", at: Date().addingTimeInterval(-3600))
            let stale = try await harness.waitUntilDone(app, event: try await harness.post(app, event: body))
            #expect(stale["failed"] as? Int == 1 && stale["pruned"] as? Int == 0)
            let kept = try await harness.api.call(.get, "/v1/apps/\(app.id)/installations/phone", key: app.serverKey)
            #expect((kept.json?["controls"] as? [Any])?.count == 1)

            // After the registration: the token is gone.
            harness.simulator.markUnregistered(token: "a001", at: Date().addingTimeInterval(60))
            let fresh = try await harness.waitUntilDone(app, event: try await harness.post(app, event: body))
            #expect(fresh["pruned"] as? Int == 1)
            let pruned = try await harness.api.call(.get, "/v1/apps/\(app.id)/installations/phone", key: app.serverKey)
            #expect((pruned.json?["controls"] as? [Any])?.count == 0)
        }
    }

    @Test func deviceTokenNotForTopicPrunesOnTheSecondStrike() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", controls: [(Self.door, "north", "a001")])
            harness.simulator.bind(token: "a001", topic: "com.example.other.push-type.controls")
            let body = #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#
            let first = try await harness.waitUntilDone(app, event: try await harness.post(app, event: body))
            #expect(first["failed"] as? Int == 1 && first["pruned"] as? Int == 0)
            let second = try await harness.waitUntilDone(app, event: try await harness.post(app, event: body))
            #expect(second["pruned"] as? Int == 1)
            let installation = try await harness.api.call(.get, "/v1/apps/\(app.id)/installations/phone", key: app.serverKey)
            #expect((installation.json?["controls"] as? [Any])?.count == 0)
        }
    }

    @Test func tokensAreNotPrunedWhenNearlyAllOfAnAppsTokensAreRefused() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            let tokens = (0..<30).map { String(format: "%04x", $0) }
            for token in tokens {
                // As if the app's bundle id were wrong: every token belongs to another topic.
                harness.simulator.bind(token: token, topic: "com.example.other.push-type.controls")
                try await harness.registerControls(app, installation: "i\(token)", controls: [(Self.door, "north", token)])
            }
            let body = #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#
            for _ in 0..<2 {
                let status = try await harness.waitUntilDone(app, event: try await harness.post(app, event: body))
                #expect(status["failed"] as? Int == 30 && status["pruned"] as? Int == 0, "\(status)")
            }
        }
    }

    @Test func appsSharingATeamKeyShareItsProviderToken() async throws {
        try await DeliveryHarness.run { harness in
            // Apple's usual set-up: one .p8 for all of a team's apps, so one connection pool and one token.
            let key = P256.Signing.PrivateKey()
            let apps = [
                try await harness.api.createApp(bundleId: "com.example.one", privateKey: key),
                try await harness.api.createApp(bundleId: "com.example.two", privateKey: key),
            ]
            var tokens: [String] = []
            var events: [(TestApp, String)] = []
            for round in 0..<5 {
                for (index, app) in apps.enumerated() {
                    let token = String(format: "%02x%02x", round, index)
                    tokens.append(token)
                    try await harness.registerControls(app, installation: "i\(token)", channels: ["r\(token)"], controls: [(Self.door, "north", token)])
                    let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"channels":["r\#(token)"]}}"#)
                    events.append((app, event))
                }
            }
            for (app, event) in events {
                let status = try await harness.waitUntilDone(app, event: event)
                #expect(status["delivered"] as? Int == 1, "\(status)")
            }
            #expect(harness.acceptedTokens == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) }))
            #expect(harness.simulator.stats.rejected["TooManyProviderTokenUpdates"] == nil)
            #expect(Set(harness.simulator.acceptedPushes.map(\.providerTokenDigest)).count == 1, "both apps' pushes carried one provider token")
        }
    }

    @Test func transientFaultsAreRetriedWithoutDuplicates() async throws {
        try await DeliveryHarness.run(simulator: {
            $0.faults = APNsSimulator.FaultPlan(rates: [
                (.status(500, reason: "InternalServerError"), 0.05), (.status(503, reason: "ServiceUnavailable"), 0.05),
                (.status(429, reason: "TooManyRequests"), 0.05),
            ], seed: 11)
        }) { harness in
            let app = try await harness.api.createApp()
            var tokens: [String] = []
            for installation in 0..<100 {
                let token = String(format: "%04x", installation)
                tokens.append(token)
                try await harness.registerControls(app, installation: "i\(installation)", controls: [(Self.door, "north", token)])
            }
            let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#)
            let status = try await harness.waitUntilDone(app, event: event)
            #expect(status["delivered"] as? Int == 100 && status["failed"] as? Int == 0, "\(status)")
            #expect(harness.acceptedTokens == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) }), "each token exactly once")
            #expect(harness.simulator.stats.rejected.values.reduce(0, +) > 0, "faults were injected")
        }
    }

    /// The faults come at fixed places among the requests APNs processes (`.latency(.zero)`: none), so each kind
    /// happens a known number of times and the connections to replace do not depend on the size of a read burst.
    /// Tokens are compared as a set: a reset may lose answers APNs already gave, and those pushes are rightly sent
    /// again (`transientFaultsAreRetriedWithoutDuplicates` counts each token's pushes).
    @Test func injectedFaultsLoseNoPush() async throws {
        try await DeliveryHarness.run { harness in
            harness.simulator.script((0..<300).map { index in
                switch index {
                case 40, 160: .reset
                case 80, 200: .goAway(graceful: false)
                case 120, 240: .shutdown
                case _ where index % 10 == 5: .status(500, reason: "InternalServerError")
                case _ where index % 10 == 7: .status(429, reason: "TooManyRequests")
                default: .latency(.zero)
                }
            })
            let app = try await harness.api.createApp()
            var tokens: Set<String> = []
            for installation in 0..<100 {
                let controls = (0..<3).map { index in (Self.door, "d\(index)", String(format: "%04x%04x", installation, index)) }
                tokens.formUnion(controls.map(\.2))
                try await harness.registerControls(app, installation: "i\(installation)", controls: controls)
            }
            let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#)
            let status = try await harness.waitUntilDone(app, event: event)
            #expect(status["state"] as? String == "done")
            #expect(status["delivered"] as? Int == 300 && status["failed"] as? Int == 0)
            #expect(Set(harness.acceptedTokens.keys) == tokens)
            let stats = harness.simulator.stats
            #expect(stats.rejected == ["InternalServerError": 30, "TooManyRequests": 30, "Shutdown": 2], "every scripted fault was applied")
            #expect(stats.goAwaysSent == 4 && stats.connectionsAccepted >= 7, "\(stats)")
        }
    }

    /// The pause lasts an hour here, so `/readyz` is read while it holds however slow the machine is.
    @Test func credentialsRefusedPauseTheAppWithoutDroppingPushes() async throws {
        try await DeliveryHarness.run(configure: { $0.delivery.credentialsPause = .seconds(3600) }) { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", controls: [(Self.door, "north", "a001")])
            harness.simulator.script([.status(403, reason: "InvalidProviderToken")])
            let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#)
            let readiness = try await harness.waitFor("/readyz to list a paused app") {
                let reply = try await harness.api.call(.get, "/readyz", key: Harness.adminKey).json ?? [:]
                return (reply["pausedApps"] as? [Any])?.isEmpty == false ? reply : nil
            }
            #expect(readiness["status"] as? String == "degraded")
            let paused = try #require((readiness["pausedApps"] as? [[String: Any]])?.first)
            #expect(paused["appId"] as? String == app.id && paused["reason"] as? String == "InvalidProviderToken")
            // Without the admin key /readyz tells the status only, naming no app.
            let anonymous = try await harness.api.call(.get, "/readyz", key: nil)
            #expect(anonymous.json?["status"] as? String == "degraded" && anonymous.json?["pausedApps"] == nil)
            #expect(!anonymous.body.contains(app.id))
            // The push is kept, neither failed nor dropped.
            let status = try #require(try await harness.api.call(.get, "/v1/apps/\(app.id)/events/\(event)", key: app.serverKey).json)
            #expect(status["state"] as? String != "done" && status["failed"] as? Int == 0 && status["delivered"] as? Int == 0)
            #expect(harness.simulator.stats.rejected["InvalidProviderToken"] == 1 && harness.acceptedTokens.isEmpty)
        }
    }

    /// Waits on the simulator's count of refusals (which stays), not on the pause's window.
    @Test func aPausedAppsPushGoesOutWhenThePauseEnds() async throws {
        try await DeliveryHarness.run(configure: { $0.delivery.credentialsPause = .milliseconds(200) }) { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", controls: [(Self.door, "north", "a001")])
            harness.simulator.script([.status(403, reason: "InvalidProviderToken")])
            let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#)
            try await harness.waitFor("the refusal") { harness.simulator.stats.rejected["InvalidProviderToken"] == 1 ? true : nil }
            let status = try await harness.waitUntilDone(app, event: event)
            #expect(status["delivered"] as? Int == 1 && status["failed"] as? Int == 0)
            #expect(harness.acceptedTokens == ["a001": 1])
        }
    }
}
