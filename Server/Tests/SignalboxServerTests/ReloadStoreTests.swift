import Foundation
import SignalboxAPI
import SignalboxModel
@testable import SignalboxStore
import Testing

/// Reload receipts in the store against a large event's packed run of delivery lines (`LogRun`): matching finds the
/// line inside the run, and the dashboard's figures count the run's pushes per control kind.
@Suite struct ReloadStoreTests {
    @Test(arguments: Backend.available) func receiptsMatchLinesInAPackedRunAndTheFiguresCountIt(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.createApp(RegistryStoreConformance.app("a"))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let count = LogRun.packedLines + 20
            for index in 0..<count {
                let id = String(format: "i%03d", index)
                try await store.putInstallation(appId: "a", Installation(id: id, userId: "u", channels: [], environment: .sandbox), now: start)
                try await store.putControls(
                    appId: "a", installationId: id, [Control(kind: index < 10 ? "gate" : "door", pushToken: String(format: "b%03d", index))], now: start
                )
            }
            try await store.logDeliveries((0..<count).map { index in
                DeliveryLogEntry(
                    appId: "a", token: String(format: "b%03d", index), pushType: "controls", eventId: "large",
                    installationId: String(format: "i%03d", index), outcome: "delivered", answer: DeliveryAnswer(status: 200),
                    attempt: 1, at: start.addingTimeInterval(2)
                )
            })
            let receipt = ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(5))
            let first = try await store.recordReloads(appId: "a", installationId: "i042", [receipt, receipt], window: 900, now: start.addingTimeInterval(6))
            #expect(first.map(\.eventId) == ["large", nil], "the second receipt for the same push is not matched")
            #expect(first.map(\.registered) == [true, true])
            // A control of another kind, and a receipt later than the window, are not matched.
            let gate = try await store.recordReloads(
                appId: "a", installationId: "i003", [ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(5))],
                window: 900, now: start.addingTimeInterval(6)
            )
            #expect(gate.map(\.eventId) == [nil] && gate.map(\.registered) == [false])
            let late = try await store.recordReloads(
                appId: "a", installationId: "i043", [ReloadReceipt(kind: "door", pushType: .controls, at: start.addingTimeInterval(2 + 901))],
                window: 900, now: start.addingTimeInterval(903)
            )
            #expect(late.map(\.eventId) == [nil])

            let stats = try await store.reloadStats(appId: "a", since: start)
            #expect(stats.map { [$0.pushType.rawValue, $0.kind] } == [["controls", "door"], ["controls", "gate"]])
            #expect(stats.map(\.delivered) == [count - 10, 10])
            #expect(stats.first?.matched == 1 && stats.first?.unmatched == 3)
            #expect(stats.first?.latencies == [])  // the event row does not exist: no latency, still matched
        }
    }
}
