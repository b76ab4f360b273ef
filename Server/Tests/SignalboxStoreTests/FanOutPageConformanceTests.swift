import Foundation
import SignalboxAPI
import SignalboxModel
import SignalboxStoreTestSupport
import Testing

/// A page is a number of installations on every backend, however many registrations each has: PostgreSQL reads a
/// controls target's page as rows of controls (`controlsPage`), and must still end each page after whole installations.
@Suite struct FanOutPageConformanceTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// Matching registrations per installation; i1 has as many as an installation may, i3 has only one of another
    /// kind, so no page counts it.
    let matching = ["i0": 1, "i1": min(Limits.controls, Limits.widgets), "i2": 2, "i3": 0, "i4": 1, "i5": 3, "i6": 1]

    @Test(arguments: StoreBackend.available) func aPageHoldsWholeInstallationsWhateverTheirControls(_ backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            for (id, count) in matching.sorted(by: { $0.key < $1.key }) {
                try await store.registry.putInstallation(appId: "a", Installation(id: id, userId: nil, channels: [], environment: .sandbox), now: now)
                var controls = (0..<count).map { Control(kind: "door", pushToken: "\(id)-door\($0)") }
                if count < Limits.controls { controls.insert(Control(kind: "lamp", pushToken: "\(id)-lamp"), at: min(1, controls.count)) }
                try await store.registry.putControls(appId: "a", installationId: id, controls, now: now)
            }
            // Pages of two installations: i0 and i1, i2 and i4, i5 and i6, then the empty page that finds the end.
            #expect(try await fanOut(store, .controls(kinds: ["door"], configuration: nil)) == [1 + (matching["i1"] ?? 0), 3, 4, 0])
            let expected = matching.flatMap { id, count in (0..<count).map { "\(id)-door\($0)" } }
            #expect(try await claimedTokens(store).sorted() == expected.sorted(), "every door control once, no lamp")
        }
    }

    @Test(arguments: StoreBackend.available) func aPageHoldsWholeInstallationsWhateverTheirWidgets(_ backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            for (id, count) in matching.sorted(by: { $0.key < $1.key }) {
                try await store.registry.putInstallation(appId: "a", Installation(id: id, userId: nil, channels: [], environment: .sandbox), now: now)
                var widgets = (0..<count).map { Widget(kind: "clock", family: "small", configuration: .object(["n": .number(Double($0))])) }
                if count < Limits.widgets { widgets.insert(Widget(kind: "news", family: "small"), at: min(1, widgets.count)) }
                try await store.registry.putWidgets(appId: "a", installationId: id, WidgetRegistration(pushToken: "\(id)-w", widgets: widgets), now: now, revision: nil)
            }
            // One push per installation with a clock, whatever its number of clocks.
            #expect(try await fanOut(store, .widgets(kinds: ["clock"], configuration: nil)) == [2, 2, 2, 0])
            #expect(try await claimedTokens(store).sorted() == ["i0-w", "i1-w", "i2-w", "i4-w", "i5-w", "i6-w"])
        }
    }

    /// PostgreSQL reads a controls page as each column's values joined by a control character: ids, kinds and
    /// configurations with any text they may hold still come back whole and in their place.
    @Test(arguments: StoreBackend.available) func aControlsPageKeepsAnyTextTheRegistrationsHold(_ backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            let room = JSONValue.string("north\u{1F}\u{1E} \"wing\", café 🚪")
            let ids = ["i 1", "i-ä", "i,2", "i\"3"]
            for (index, id) in ids.enumerated() {
                try await store.registry.putInstallation(appId: "a", Installation(id: id, userId: nil, channels: [], environment: .sandbox), now: now)
                try await store.registry.putControls(appId: "a", installationId: id, [
                    Control(kind: "door ⌂", configuration: .object(["room": index == 2 ? .string("south") : room]), pushToken: "aa0\(index)"),
                    Control(kind: "lamp", configuration: .object([:]), pushToken: "bb0\(index)"),
                ], now: now)
            }
            _ = try await fanOut(store, .controls(kinds: ["door ⌂"], configuration: ["room": room]))
            #expect(try await claimedTokens(store).sorted() == ["aa00", "aa01", "aa03"], "the filtered doors, none of the other kind")
        }
    }

    /// Fans an event to `target` out in pages of two installations. - Returns: the pushes each step planned.
    private func fanOut(_ store: PortStores, _ target: EventTarget) async throws -> [Int] {
        try await store.delivery.createEvent(EventRecord(id: "e1", appId: "a", request: EventRequest(target: target, audience: .all), createdAt: now))
        var planned: [Int] = []
        var step = FanOutStep(planned: 0, coalesced: 0, finished: false)
        while !step.finished, planned.count < 10 {
            step = try await store.delivery.fanOutStep(eventId: "e1", batchSize: 2, now: now + 1, handOff: 0)
            planned.append(step.planned)
        }
        return planned
    }

    private func claimedTokens(_ store: PortStores) async throws -> [String] {
        var tokens: [String] = []
        while true {
            let claimed = try await store.delivery.claimDuePushes(now: now + 2, limit: 50, pausedApps: [])
            if claimed.isEmpty { return tokens }
            tokens += claimed.map(\.token)
        }
    }
}
