import Foundation
import SignalboxAPI
import SignalboxModel
@testable import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// Reload receipts in the store against a large event's packed run of delivery lines (`LogRun`): matching finds the
/// line inside the run, and the dashboard's figures count the run's pushes per control kind.
@Suite struct ReloadStoreTests {
    @Test(arguments: Backend.available) func receiptsMatchLinesInAPackedRunAndTheFiguresCountIt(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let count = LogRun.packedLines + 20
            for index in 0..<count {
                let id = String(format: "i%03d", index)
                try await store.registry.putInstallation(appId: "a", Installation(id: id, userId: "u", channels: [], environment: .sandbox), now: start)
                try await store.registry.putControls(
                    appId: "a", installationId: id, [Control(kind: index < 10 ? "gate" : "door", pushToken: String(format: "b%03d", index))], now: start
                )
            }
            try await store.deliveryLog.logDeliveries((0..<count).map { index in
                DeliveryLogEntry(
                    appId: "a", token: String(format: "b%03d", index), pushType: "controls", eventId: "large",
                    installationId: String(format: "i%03d", index), outcome: .delivered, answer: DeliveryAnswer(status: 200),
                    attempt: 1, at: start.addingTimeInterval(2)
                )
            })
            let receipt = ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(5))
            let first = try await store.reloads.recordReloads(appId: "a", installationId: "i042", [receipt, receipt], window: 900, keep: 1000, now: start.addingTimeInterval(6)).matches
            #expect(first.map(\.eventId) == ["large", nil], "the second receipt for the same push is not matched")
            #expect(first.map(\.registered) == [true, true])
            // A control of another kind, and a receipt later than the window, are not matched.
            let gate = try await store.reloads.recordReloads(
                appId: "a", installationId: "i003", [ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(5))],
                window: 900, keep: 1000, now: start.addingTimeInterval(6)
            ).matches
            #expect(gate.map(\.eventId) == [nil] && gate.map(\.registered) == [false])
            let late = try await store.reloads.recordReloads(
                appId: "a", installationId: "i043", [ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(2 + 901))],
                window: 900, keep: 1000, now: start.addingTimeInterval(903)
            ).matches
            #expect(late.map(\.eventId) == [nil])

            let stats = try await store.reloads.reloadStats(appId: "a", since: start)
            #expect(stats.map { [$0.pushType.rawValue, $0.kind] } == [["controls", "door"], ["controls", "gate"]])
            #expect(stats.map(\.delivered) == [count - 10, 10])
            #expect(stats.first?.matched == 1 && stats.first?.unmatched == 3)
            #expect(stats.first?.latencies == [])  // the event row does not exist: no latency, still matched
        }
    }

    @Test(arguments: Backend.available) func aReceiptFindsItsPushUnderManyNewerLines(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.registry.putInstallation(appId: "a", Installation(id: "phone", userId: "u", channels: [], environment: .sandbox), now: start)
            try await store.registry.putControls(appId: "a", installationId: "phone", [Control(kind: "door", pushToken: "b001")], now: start)
            func line(_ event: String, _ outcome: DeliveryOutcome, at: Date) -> DeliveryLogEntry {
                DeliveryLogEntry(
                    appId: "a", token: "b001", pushType: "controls", eventId: event, installationId: "phone", outcome: outcome,
                    answer: DeliveryAnswer(status: outcome == .delivered ? 200 : 410), attempt: 1, at: at
                )
            }
            // The push the receipt answers, then more lines than the old read of the newest 500 held, all after the
            // reload (and, before the push, failures inside its window).
            var lines = [line("answered", .delivered, at: start.addingTimeInterval(2))]
            lines += (0..<20).map { line("failed-\($0)", .failed, at: start.addingTimeInterval(1)) }
            lines += (0..<(SQLReloads.reloadMatchLines + 100)).map { line("later-\($0)", .delivered, at: start.addingTimeInterval(60 + Double($0))) }
            try await store.deliveryLog.logDeliveries(lines)
            let receipt = ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(5))
            let recorded = try await store.reloads.recordReloads(appId: "a", installationId: "phone", [receipt], window: 900, keep: 1000, now: start.addingTimeInterval(6))
            #expect(recorded.matches.map(\.eventId) == ["answered"], "matched by the reload's own window, not the newest lines")
            #expect(recorded.dropped == 0)
        }
    }

    @Test(arguments: Backend.available) func eachInstallationKeepsItsNewestReceiptsOnly(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            func batch(_ count: Int, from offset: Int) -> [ReloadReceipt] {
                (0..<count).map { ReloadReceipt(kind: "k\(offset + $0)", pushType: .widgets, at: start.addingTimeInterval(Double(offset + $0))) }
            }
            // A quiet installation keeps all of its receipts.
            #expect(try await store.reloads.recordReloads(appId: "a", installationId: "quiet", batch(3, from: 0), window: 900, keep: 5, now: start).dropped == 0)
            // A noisy one: 4, then 4 more (8 > 5: the 3 oldest go), then 7 in one batch (the batch's newest 5 stay).
            let noisy = "noisy"
            #expect(try await store.reloads.recordReloads(appId: "a", installationId: noisy, batch(4, from: 0), window: 900, keep: 5, now: start).dropped == 0)
            let second = try await store.reloads.recordReloads(appId: "a", installationId: noisy, batch(4, from: 10), window: 900, keep: 5, now: start + 1)
            #expect(second.dropped == 3 && second.matches.count == 4)
            let third = try await store.reloads.recordReloads(appId: "a", installationId: noisy, batch(7, from: 20), window: 900, keep: 5, now: start + 2)
            #expect(third.dropped == 7)
            let stats = try await store.reloads.reloadStats(appId: "a", since: start)
            #expect(stats.map(\.unmatched).reduce(0, +) == 8)
            let kinds = stats.filter { $0.unmatched > 0 }.map(\.kind)
            #expect(Set(kinds) == Set(["k0", "k1", "k2"] + (22..<27).map { "k\($0)" }), "the quiet installation's 3 and the noisy one's newest 5")
        }
    }

    @Test(arguments: Backend.available) func theFiguresAreCountedInTheDatabaseWithTheirLatencies(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.registry.putInstallation(appId: "a", Installation(id: "phone", userId: "u", channels: [], environment: .sandbox), now: start)
            try await store.registry.putControls(appId: "a", installationId: "phone", [Control(kind: "door", pushToken: "b001")], now: start)
            for (id, offset) in [("e1", 0.0), ("e2", 10.0)] {
                try await store.delivery.createEvent(EventRecord(
                    id: id, appId: "a", request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all),
                    createdAt: start.addingTimeInterval(offset)
                ))
            }
            try await store.deliveryLog.logDeliveries([("e1", 1.0), ("e2", 11.0)].map { event, offset in
                DeliveryLogEntry(
                    appId: "a", token: "b001", pushType: "controls", eventId: event, installationId: "phone", outcome: .delivered,
                    answer: DeliveryAnswer(status: 200), attempt: 1, at: start.addingTimeInterval(offset)
                )
            })
            let receipts = [
                ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(3)),
                ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(15)),
                ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(16)),
                ReloadReceipt(kind: "gate", pushType: .controls, at: start.addingTimeInterval(16)),
            ]
            let recorded = try await store.reloads.recordReloads(appId: "a", installationId: "phone", receipts, window: 900, keep: 1000, now: start + 20)
            #expect(recorded.matches.map(\.eventId) == ["e1", "e2", nil, nil])
            let stats = try await store.reloads.reloadStats(appId: "a", since: start)
            #expect(stats.map { "\($0.kind) \($0.delivered) \($0.matched) \($0.unmatched) \($0.latencies)" } == ["door 2 2 1 [3.0, 5.0]", "gate 0 0 1 []"])
            #expect(try await store.reloads.reloadStats(appId: "a", since: start + 21).isEmpty, "receipts recorded before the period are not counted")
        }
    }
}
