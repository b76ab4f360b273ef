import APNsSimulator
import Foundation
import Logging
import SignalboxModel
@testable import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// The delivery log and its endpoints: `GET …/tokens/{token}` and `GET …/events`, through the real server.
@Suite struct DeliveryLogTests {
    static let door = "com.example.garage.door"

    @Test(arguments: Backend.available) func tokenInspectorShowsTheRegistrationAndEveryAttempt(_ backend: Backend) async throws {
        let database = backend == .postgres ? try await TestDatabases.fresh() : nil
        try await DeliveryHarness.run(configure: { $0.database = database }) { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", user: "ana", controls: [(Self.door, "north", "a001")])
            // The first attempt meets a 500 and is retried; the second is delivered.
            harness.simulator.script([.status(500, reason: "InternalServerError")])
            let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#)
            #expect(try await harness.waitUntilDone(app, event: event)["delivered"] as? Int == 1)

            let reply = try await harness.api.call(.get, "/v1/apps/\(app.id)/tokens/A001", key: app.serverKey)
            expectStatus(200, reply)
            let json = try #require(reply.json)
            #expect(json["token"] as? String == "a001")
            let registrations = try #require(json["registrations"] as? [[String: Any]])
            #expect(registrations.count == 1)
            #expect(registrations.first?["installationId"] as? String == "phone")
            #expect(registrations.first?["userId"] as? String == "ana")
            #expect(registrations.first?["kind"] as? String == "controls")
            #expect(registrations.first?["targets"] as? [String] == [Self.door])
            #expect((registrations.first?["configurations"] as? [[String: String]]) == [["door": "north"]])
            let deliveries = try #require(json["deliveries"] as? [[String: Any]])
            #expect(deliveries.map { $0["outcome"] as? String } == ["delivered", "retry"])
            #expect(deliveries.map { $0["attempt"] as? Int } == [2, 1])
            #expect(deliveries.map { $0["status"] as? Int } == [200, 500])
            #expect(deliveries.last?["reason"] as? String == "InternalServerError")
            #expect(deliveries.allSatisfy { $0["eventId"] as? String == event && $0["pushType"] as? String == "controls" })
            let apnsId = try #require(deliveries.first?["apnsId"] as? String)
            #expect(UUID(uuidString: apnsId) != nil)
            #expect((deliveries.first?["at"] as? String)?.hasSuffix("Z") == true)
        }
    }

    @Test func aDirectPushIsLoggedAndAPrunedTokenKeepsItsLog() async throws {
        try await DeliveryHarness.run { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", controls: [(Self.door, "north", "a001")])
            let sent = try await harness.api.call(.post, "/v1/apps/\(app.id)/pushes", key: app.serverKey, json: #"{"pushToken":"c0ffee","pushType":"background"}"#)
            expectStatus(200, sent)
            let direct = try await harness.api.call(.get, "/v1/apps/\(app.id)/tokens/c0ffee", key: app.serverKey)
            expectStatus(200, direct)
            #expect((direct.json?["registrations"] as? [Any])?.isEmpty == true)
            let line = try #require((direct.json?["deliveries"] as? [[String: Any]])?.first)
            #expect(line["outcome"] as? String == "delivered" && line["pushType"] as? String == "background" && line["eventId"] == nil)

            let toAll = #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#
            #expect(try await harness.waitUntilDone(app, event: try await harness.post(app, event: toAll))["delivered"] as? Int == 1)
            harness.simulator.markUnregistered(token: "a001", at: Date().addingTimeInterval(60))
            #expect(try await harness.waitUntilDone(app, event: try await harness.post(app, event: toAll))["pruned"] as? Int == 1)
            let pruned = try await harness.api.call(.get, "/v1/apps/\(app.id)/tokens/a001", key: app.serverKey)
            expectStatus(200, pruned)
            #expect((pruned.json?["registrations"] as? [Any])?.isEmpty == true)
            // The delivered line is found through the installation the pruned line names.
            let lines = try #require(pruned.json?["deliveries"] as? [[String: Any]])
            #expect(lines.map { $0["outcome"] as? String } == ["pruned", "delivered"])
            #expect(lines.first?["status"] as? Int == 410 && lines.first?["reason"] as? String == "Unregistered")
        }
    }

    @Test func noLinesAreWrittenWhenTheLogIsTurnedOff() async throws {
        try await DeliveryHarness.run(configure: { $0.deliveryLog.maxLinesPerApp = 0 }) { harness in
            let app = try await harness.api.createApp()
            try await harness.registerControls(app, installation: "phone", controls: [(Self.door, "north", "a001")])
            let event = try await harness.post(app, event: #"{"target":{"controls":{"kinds":["\#(Self.door)"]}},"audience":{"all":true}}"#)
            #expect(try await harness.waitUntilDone(app, event: event)["delivered"] as? Int == 1)
            expectStatus(200, try await harness.api.call(.post, "/v1/apps/\(app.id)/pushes", key: app.serverKey, json: #"{"pushToken":"c0ffee","pushType":"background"}"#))
            let registered = try await harness.api.call(.get, "/v1/apps/\(app.id)/tokens/a001", key: app.serverKey)
            expectStatus(200, registered)
            #expect((registered.json?["deliveries"] as? [Any])?.isEmpty == true)
            expectStatus(404, try await harness.api.call(.get, "/v1/apps/\(app.id)/tokens/c0ffee", key: app.serverKey))
        }
    }

    @Test func tokenInspectorRefusesBadUnknownAndForeignRequests() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let other = try await api.createApp(bundleId: "com.example.other")
            let bad = try await api.call(.get, "/v1/apps/\(app.id)/tokens/not-hex", key: app.serverKey)
            #expect(bad.status == 400 && bad.errorCode == "invalid_field")
            let unknown = try await api.call(.get, "/v1/apps/\(app.id)/tokens/abcd", key: app.serverKey)
            #expect(unknown.status == 404 && unknown.errorCode == "not_found")
            #expect(try await api.call(.get, "/v1/apps/\(app.id)/tokens/abcd", key: nil).status == 401)
            let foreign = try await api.call(.get, "/v1/apps/\(app.id)/tokens/abcd", key: other.serverKey)
            #expect(foreign.status == 403)
            let device = try await api.call(.get, "/v1/apps/\(app.id)/tokens/abcd", key: app.deviceToken(userId: "u1"))
            #expect(device.status == 403)
        }
    }

    @Test(arguments: Backend.available) func eventsArePagedNewestFirstAndFilteredByState(_ backend: Backend) async throws {
        let harness = try await Harness.make(store: try await backend.open())
        try await harness.run { api in
            let app = try await api.createApp()
            var posted: [String] = []
            for _ in 0..<3 {
                let reply = try await api.call(.post, "/v1/apps/\(app.id)/events", key: app.serverKey, json: #"{"target":{"controls":{"kinds":["k"]}},"audience":{"all":true}}"#)
                posted.append(try #require(reply.json?["eventId"] as? String))
                harness.advance(seconds: 1)
            }
            let first = try await api.call(.get, "/v1/apps/\(app.id)/events?limit=2", key: app.serverKey)
            expectStatus(200, first)
            let page = try #require(first.json?["events"] as? [[String: Any]])
            #expect(page.map { $0["eventId"] as? String } == [posted[2], posted[1]])
            #expect(page.first?["state"] as? String == "accepted" && page.first?["matched"] as? Int == 0)
            #expect((page.first?["createdAt"] as? String)?.hasSuffix("Z") == true)
            let next = try #require(first.json?["next"] as? String)
            let second = try await api.call(.get, "/v1/apps/\(app.id)/events?limit=2&after=\(next)", key: app.serverKey)
            #expect((second.json?["events"] as? [[String: Any]])?.map { $0["eventId"] as? String } == [posted[0]])
            #expect(second.json?["next"] == nil)
            let accepted = try await api.call(.get, "/v1/apps/\(app.id)/events?state=accepted", key: app.serverKey)
            #expect((accepted.json?["events"] as? [Any])?.count == 3)
            let done = try await api.call(.get, "/v1/apps/\(app.id)/events?state=done", key: app.serverKey)
            #expect((done.json?["events"] as? [Any])?.isEmpty == true)
            let other = try await api.createApp(bundleId: "com.example.other")
            let foreign = try await api.call(.get, "/v1/apps/\(other.id)/events", key: other.serverKey)
            #expect((foreign.json?["events"] as? [Any])?.isEmpty == true, "apps never see each other's events")
        }
    }

    @Test(arguments: ["state=finished", "limit=0", "limit=501", "limit=ten", "after=no-such-event", "page=2"])
    func eventListRefusesBadQueries(query: String) async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let reply = try await api.call(.get, "/v1/apps/\(app.id)/events?\(query)", key: app.serverKey)
            #expect(reply.status == 400 && reply.errorCode == "invalid_field", "\(reply.body)")
            #expect(reply.errorMessage?.contains(String(query.prefix { $0 != "=" })) == true)
        }
    }

    @Test(arguments: Backend.available) func pruningKeepsEachAppsNewestLinesWithinTheRetention(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a", keyHash: "hash-a"))
            try await store.registry.createApp(AppRecord.fixture("b", keyHash: "hash-b"))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            func line(_ app: String, _ minute: Int) -> DeliveryLogEntry {
                DeliveryLogEntry(
                    appId: app, token: "aa", pushType: "controls", eventId: "e", outcome: .delivered, answer: DeliveryAnswer(status: 200),
                    attempt: 1, at: start.addingTimeInterval(Double(minute) * 60)
                )
            }
            try await store.deliveryLog.logDeliveries((0..<6).map { line("a", $0) } + (0..<2).map { line("b", $0) })
            // Lines before minute 1 are too old; each app keeps its newest 3.
            let removed = try await store.deliveryLog.pruneDeliveryLog(before: start.addingTimeInterval(60), keepPerApp: 3)
            #expect(removed == 4)
            let kept = try await store.deliveryLog.deliveryLog(appId: "a", token: "aa", limit: 10).map(\.at)
            #expect(kept == [5, 4, 3].map { start.addingTimeInterval(Double($0) * 60) })
            #expect(try await store.deliveryLog.deliveryLog(appId: "b", token: "aa", limit: 10).count == 1)
            #expect(try await store.deliveryLog.deliveryOutcomes(appId: "a", eventId: "e") == [.delivered: 3])
            #expect(try await store.deliveryLog.pruneDeliveryLog(before: start.addingTimeInterval(60), keepPerApp: 3) == 0, "nothing left to prune")
            #expect(try await store.registry.deleteApp(id: "a"))
            #expect(try await store.deliveryLog.deliveryLog(appId: "a", token: "aa", limit: 10).isEmpty, "a deleted app's log goes with it")
        }
    }

    /// A prune goes in turns of about `pruneTurn` lines; lines logged in one millisecond (one recording of many
    /// answers) are more than a turn and still go.
    @Test(arguments: Backend.available) func pruningGoesInTurnsThroughLinesOfOneMillisecond(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            func line(_ milliseconds: Int) -> DeliveryLogEntry {
                DeliveryLogEntry(
                    appId: "a", token: "aa", pushType: "controls", eventId: "e", outcome: .delivered, answer: DeliveryAnswer(status: 200),
                    attempt: 1, at: start.addingTimeInterval(Double(milliseconds) / 1000)
                )
            }
            let sameMillisecond = (0..<7_000).map { _ in line(0) }
            let spread = (1...7_000).map(line)
            let recent = (0..<10).map { line(3_600_000 + $0) }
            try await store.deliveryLog.logDeliveries(sameMillisecond + spread + recent)
            #expect(try await store.deliveryLog.pruneDeliveryLog(before: start.addingTimeInterval(1_800), keepPerApp: 100_000) == 14_000)
            #expect(try await store.deliveryLog.deliveryOutcomes(appId: "a", since: start) == [.delivered: 10])
        }
    }

    /// A large event's delivered lines are kept as runs (`LogRun.packed`), a small one's as rows; reads by
    /// installation, token and event find both, once each, newest first; the prune counts both.
    @Test(arguments: Backend.available) func linesInRunsAndRowsAreFoundByInstallationTokenAndEvent(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            func line(_ index: Int, event: String, outcome: DeliveryOutcome = .delivered, attempt: Int = 1, minute: Int) -> DeliveryLogEntry {
                DeliveryLogEntry(
                    appId: "a", token: String(format: "b%03d", index), pushType: "controls", eventId: event, installationId: String(format: "i%03d", index),
                    outcome: outcome, answer: DeliveryAnswer(status: outcome == .delivered ? 200 : 500, apnsId: "apns-\(index)-\(minute)"),
                    attempt: attempt, at: start.addingTimeInterval(Double(minute) * 60)
                )
            }
            // Two recordings of the large event, in an order that is not the installations' (answers arrive so).
            let large = (0..<LogRun.packedLines + 50).map { line($0, event: "large", minute: 2) }
            let later = (0..<LogRun.packedLines).reversed().map { line($0, event: "large", minute: 3) }
            try await store.deliveryLog.logDeliveries([line(7, event: "small", outcome: .retry, minute: 0), line(7, event: "small", attempt: 2, minute: 1)])
            try await store.deliveryLog.logDeliveries(large)
            try await store.deliveryLog.logDeliveries(later)

            let byInstallation = try await store.deliveryLog.deliveryLog(appId: "a", installationId: "i007", limit: 10)
            #expect(byInstallation.map { [$0.eventId, $0.outcome.rawValue, $0.answer.apnsId] } == [
                ["large", "delivered", "apns-7-3"], ["large", "delivered", "apns-7-2"], ["small", "delivered", "apns-7-1"], ["small", "retry", "apns-7-0"],
            ])
            #expect(byInstallation.first == later.first { $0.token == "b007" })
            #expect(try await store.deliveryLog.deliveryLog(appId: "a", token: "b007", limit: 10) == byInstallation)
            #expect(try await store.deliveryLog.deliveryLog(appId: "a", installationId: "i149", limit: 10).map(\.token) == ["b149"])
            #expect(try await store.deliveryLog.deliveryLog(appId: "a", installationId: "i150", limit: 10).isEmpty)
            let event = try await store.deliveryLog.deliveryLog(appId: "a", eventId: "large", limit: 1_000)
            #expect(event.count == large.count + later.count && Set(event) == Set(large + later))
            #expect(try await store.deliveryLog.deliveryLog(appId: "a", eventId: "large", limit: 3).map(\.at) == Array(repeating: start.addingTimeInterval(180), count: 3))
            #expect(try await store.deliveryLog.deliveryOutcomes(appId: "a", eventId: "large") == [.delivered: large.count + later.count])
            #expect(try await store.deliveryLog.deliveryOutcomes(appId: "a", since: start.addingTimeInterval(60)) == [.delivered: large.count + later.count + 1])

            // Keeping 101 lines keeps the later run (100) and the newest line logged before it, which is in the large
            // run: that run's time goes whole, and the small event's lines are older.
            #expect(try await store.deliveryLog.pruneDeliveryLog(before: start, keepPerApp: LogRun.packedLines + 1) == large.count + 2)
            #expect(try await store.deliveryLog.deliveryLog(appId: "a", installationId: "i007", limit: 10) == [byInstallation[0]])
            #expect(try await store.deliveryLog.pruneDeliveryLog(before: start.addingTimeInterval(240), keepPerApp: 1_000) == later.count)
            #expect(try await store.deliveryLog.deliveryOutcomes(appId: "a", since: start).isEmpty)
        }
    }

    /// A run's range of installation ids is bytewise, in a PostgreSQL database whose collation is not: "a" sorts
    /// before "B" in en-US and after it in bytes.
    @Test(arguments: Backend.shared) func aRunIsFoundUnderALocaleCollation(_ backend: Backend) async throws {
        let store = try await backend.open(url: try await TestDatabases.fresh(icuLocale: "en-US"), maxConnections: 2)
        do {
            try await store.registry.createApp(AppRecord.fixture("a"))
            let ids = ["a", "B", "c"] + (0..<LogRun.packedLines).map { "x\($0)" }
            try await store.deliveryLog.logDeliveries(ids.map {
                DeliveryLogEntry(appId: "a", token: "aa", pushType: "controls", eventId: "e", installationId: $0, outcome: .delivered, answer: DeliveryAnswer(status: 200), attempt: 1, at: Date())
            })
            for id in ["a", "B", "c"] { #expect(try await store.deliveryLog.deliveryLog(appId: "a", installationId: id, limit: 5).count == 1, "\(id)") }
        } catch {
            try await store.close()
            throw error
        }
        try await store.close()
    }

    /// Lines reach the database as one JSON parameter (`JSONRows`): quotes, backslashes, control characters, non-ASCII
    /// text, missing values and large numbers come back as they went in.
    @Test(arguments: Backend.available) func awkwardTextInTheLogIsData(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            let at = Date(timeIntervalSince1970: 4_102_444_800.123)
            let awkward = DeliveryLogEntry(
                appId: "a", token: "aa", pushType: "controls", eventId: nil, outcome: .failed,
                answer: DeliveryAnswer(status: nil, reason: "quote \" backslash \\ newline \n tab \t bell \u{7} ü 🚀", apnsId: "o'brien\"); --"),
                attempt: Int(Int32.max), at: at
            )
            let plain = DeliveryLogEntry(
                appId: "a", token: "aa", pushType: "widgets", eventId: "e", outcome: .delivered, answer: DeliveryAnswer(status: 200),
                attempt: 1, at: at.addingTimeInterval(-1)
            )
            try await store.deliveryLog.logDeliveries([awkward, plain])
            let lines = try await store.deliveryLog.deliveryLog(appId: "a", token: "aa", limit: 10)
            #expect(lines.count == 2)
            #expect(lines.first?.answer == awkward.answer)
            #expect(lines.first?.eventId == nil && lines.first?.attempt == Int(Int32.max) && lines.first.map { ($0.at.timeIntervalSince1970 * 1000).rounded() } == 4_102_444_800_123)
            #expect(lines.last?.answer == plain.answer && lines.last?.eventId == "e" && lines.last?.pushType == "widgets")
        }
    }
}
