import Foundation
import Testing

/// What the client SDK relies on: revisions refuse late snapshots, a reinstall takes its tokens along, and a
/// target without kinds reaches every kind.
struct ClientContractTests {
    @Test func anOlderRevisionIsRefusedWithTheCurrentOneAndChangesNothing() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let base = "/v1/apps/\(app.id)/installations/i"
            let key = app.serverKey
            expectStatus(204, try await api.call(.put, base, key: key, json: #"{"channels":["a"],"revision":3}"#))
            let late = try await api.call(.put, base, key: key, json: #"{"channels":["old"],"revision":2}"#)
            #expect(late.status == 409 && late.errorCode == "stale_revision")
            #expect((late.json?["error"] as? [String: Any])?["currentRevision"] as? Int == 3)
            #expect(try await api.call(.get, base, key: key).json?["channels"] as? [String] == ["a"])
            // The same revision again (a retry, the daily refresh) is applied; without a revision always.
            expectStatus(204, try await api.call(.put, base, key: key, json: #"{"channels":["b"],"revision":3}"#))
            expectStatus(204, try await api.call(.put, base, key: key, json: #"{"channels":["c"]}"#))
            #expect(try await api.call(.get, base, key: key).json?["channels"] as? [String] == ["c"])

            expectStatus(204, try await api.call(.put, base + "/controls", key: key, json: #"{"controls":[{"kind":"k","pushToken":"02"}],"revision":9}"#))
            let staleControls = try await api.call(.put, base + "/controls", key: key, json: #"{"controls":[{"kind":"k","pushToken":"01"}],"revision":8}"#)
            #expect(staleControls.status == 409 && staleControls.errorCode == "stale_revision")
            let controls = try #require(try await api.call(.get, base, key: key).json?["controls"] as? [[String: Any]])
            #expect(controls.map { $0["pushToken"] as? String } == ["02"])

            expectStatus(204, try await api.call(.put, base + "/widgets", key: key, json: #"{"pushToken":"aa","widgets":[],"revision":5}"#))
            #expect(try await api.call(.put, base + "/widgets", key: key, json: #"{"pushToken":"bb","widgets":[],"revision":4}"#).status == 409)
            expectStatus(204, try await api.call(.put, base + "/file-provider", key: key, json: #"{"pushToken":"cc","domains":[{"id":"d"}],"revision":1}"#))
            #expect(try await api.call(.put, base + "/file-provider", key: key, json: #"{"pushToken":"cd","domains":[],"revision":0}"#).status == 409)

            // An enumerator's PUT and DELETE share a revision: a late renewal does not revive it.
            let lease = base + "/file-provider/domains/d/enumerators/folder"
            #expect(try await api.call(.put, lease, key: key, json: #"{"revision":1}"#).status == 200)
            expectStatus(204, try await api.call(.delete, lease + "?revision=2", key: key))
            #expect(try await api.call(.put, lease, key: key, json: #"{"revision":1}"#).status == 409)
            let fileProvider = try #require(try await api.call(.get, base, key: key).json?["fileProvider"] as? [String: Any])
            #expect(fileProvider["pushToken"] as? String == "cc")
            #expect((fileProvider["enumerators"] as? [Any])?.isEmpty == true)
            #expect(try await api.call(.delete, lease + "?revision=x", key: key).errorCode == "invalid_field")
            let unknown = try await api.call(.delete, lease + "?revison=3", key: key)
            #expect(unknown.status == 400 && unknown.errorMessage?.contains("revison") == true, "a misspelt query parameter is refused")
            let combining = "e" + String(repeating: "\u{301}", count: 300)
            let long = try await api.call(.delete, base + "/file-provider/domains/d/enumerators/" + combining.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!, key: key)
            #expect(long.status == 400 && long.errorMessage?.contains("containerId") == true, "300 code points are over the limit")
            #expect(try await api.call(.put, base, key: key, json: #"{"revision":-1}"#).errorCode == "invalid_field")
        }
    }

    @Test func deletingAnInstallationForgetsItsRevisions() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let base = "/v1/apps/\(app.id)/installations/i"
            expectStatus(204, try await api.call(.put, base, key: app.serverKey, json: #"{"revision":7}"#))
            expectStatus(204, try await api.call(.delete, base, key: app.serverKey))
            expectStatus(204, try await api.call(.put, base, key: app.serverKey, json: #"{"revision":1}"#))
        }
    }

    @Test func aReinstallTakesItsTokensAndTheOldInstallationDrawsNoPush() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            let key = app.serverKey
            for installation in ["before-reinstall", "after-reinstall"] {
                let base = "/v1/apps/\(app.id)/installations/\(installation)"
                expectStatus(204, try await harness.api.call(.put, base, key: key, json: #"{"userId":"u1","channels":["home:42"]}"#))
                expectStatus(204, try await harness.api.call(.put, base + "/controls", key: key, json: #"{"controls":[{"kind":"door","pushToken":"c0"}]}"#))
                expectStatus(204, try await harness.api.call(.put, base + "/widgets", key: key, json: #"{"pushToken":"e0","widgets":[{"kind":"Caffeine","family":"systemSmall"}]}"#))
                expectStatus(204, try await harness.api.call(.put, base + "/file-provider", key: key, json: #"{"pushToken":"f0","domains":[{"id":"acct"}]}"#))
            }
            let events = [
                #"{"target":{"controls":{"kinds":["door"]}},"audience":{"users":["u1"]}}"#,
                #"{"target":{"widgets":{"kinds":["Caffeine"]}},"audience":{"users":["u1"]}}"#,
                #"{"target":{"fileProvider":{"domain":"acct","container":"NSFileProviderWorkingSetContainerItemIdentifier"}},"audience":{"users":["u1"]}}"#,
            ]
            for event in events {
                let status = try await harness.waitUntilDone(app, event: try await harness.post(app, event: event))
                #expect(status["matched"] as? Int == 1)
            }
            #expect(harness.acceptedTokens == ["c0": 1, "e0": 1, "f0": 1])
            let old = try #require(try await harness.api.call(.get, "/v1/apps/\(app.id)/installations/before-reinstall", key: key).json)
            #expect((old["controls"] as? [Any])?.isEmpty == true)
            #expect(old["widgets"] == nil && old["fileProvider"] == nil)
        }
    }

    @Test func aTargetWithoutKindsReachesEveryKind() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", controls: [("door", "north", "a1"), ("light", "north", "a2")])
            try await harness.registerControls(app, installation: "pad", controls: [("fan", "south", "b1")])
            let all = try await harness.post(app, event: #"{"target":{"controls":{}},"audience":{"all":true}}"#)
            #expect(try await harness.waitUntilDone(app, event: all)["delivered"] as? Int == 3)
            let filtered = try await harness.post(app, event: #"{"target":{"controls":{"kinds":[],"configuration":{"door":"north"}}},"audience":{"all":true}}"#)
            #expect(try await harness.waitUntilDone(app, event: filtered)["delivered"] as? Int == 2)
            #expect(harness.acceptedTokens == ["a1": 2, "a2": 2, "b1": 1])
            let none = try await harness.post(app, event: #"{"target":{"widgets":{}},"audience":{"all":true}}"#)
            let status = try await harness.waitUntilDone(app, event: none)
            #expect(status["state"] as? String == "done" && status["matched"] as? Int == 0)
        }
    }
}
