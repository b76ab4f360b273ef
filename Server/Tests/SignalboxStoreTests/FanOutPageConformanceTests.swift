import Foundation
import SignalboxAPI
import SignalboxModel
import SignalboxStoreTestSupport
import Testing

/// A page is a number of installations on every backend, however many controls each has: PostgreSQL reads a controls
/// target's page as rows of controls (`controlsPage`), and must still end each page after whole installations.
@Suite struct FanOutPageConformanceTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: StoreBackend.available) func aPageHoldsWholeInstallationsWhateverTheirControls(_ backend: StoreBackend) async throws {
        // Matching controls per installation; i3 has only a control of another kind, so no page counts it.
        let doors = ["i0": 1, "i1": Limits.controls, "i2": 2, "i3": 0, "i4": 1, "i5": 3, "i6": 1]
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            for (id, count) in doors.sorted(by: { $0.key < $1.key }) {
                try await store.registry.putInstallation(appId: "a", Installation(id: id, userId: nil, channels: [], environment: .sandbox), now: now)
                var controls = (0..<count).map { Control(kind: "door", pushToken: "\(id)-door\($0)") }
                if count < Limits.controls { controls.insert(Control(kind: "lamp", pushToken: "\(id)-lamp"), at: min(1, controls.count)) }
                try await store.registry.putControls(appId: "a", installationId: id, controls, now: now)
            }
            try await store.delivery.createEvent(EventRecord(
                id: "e1", appId: "a", request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all), createdAt: now
            ))
            var planned: [Int] = []
            var step = FanOutStep(planned: 0, coalesced: 0, finished: false)
            while !step.finished, planned.count < 10 {
                step = try await store.delivery.fanOutStep(eventId: "e1", batchSize: 2, now: now + 1, handOff: 0)
                planned.append(step.planned)
            }
            // Pages of two installations: i0 and i1, i2 and i4, i5 and i6, then the empty page that finds the end.
            #expect(planned == [1 + Limits.controls, 3, 4, 0])
            var tokens: [String] = []
            while true {
                let claimed = try await store.delivery.claimDuePushes(now: now + 2, limit: 50, pausedApps: [])
                if claimed.isEmpty { break }
                tokens += claimed.map(\.token)
            }
            let expected = doors.flatMap { id, count in (0..<count).map { "\(id)-door\($0)" } }
            #expect(tokens.sorted() == expected.sorted(), "every door control once, no lamp")
        }
    }
}
