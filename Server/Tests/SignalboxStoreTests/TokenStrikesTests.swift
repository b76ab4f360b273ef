import Foundation
import SignalboxAPI
import SignalboxDelivery
import SignalboxModel
import SignalboxStoreTestSupport
import Testing

/// `BadDeviceToken` strikes (`TokenPruning`): two in a row remove the token; a delivery in between clears them.
@Suite struct TokenStrikesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// One push to the app's one control per answer, in order. - Returns: how many tokens the answers removed.
    func answer(_ store: PortStores, _ results: [DeliveryResult]) async throws -> Int {
        try await store.registry.createApp(AppRecord.fixture("a"))
        try await store.registry.putInstallation(appId: "a", Installation(id: "i1", userId: nil, channels: [], environment: .sandbox), now: now)
        try await store.registry.putControls(appId: "a", installationId: "i1", [Control(kind: "door", pushToken: "t1")], now: now)
        var pruned = 0
        for (index, result) in results.enumerated() {
            let time = now + Double(index * 10)
            try await store.delivery.createEvent(EventRecord(
                id: "e\(index)", appId: "a", request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all),
                createdAt: time
            ))
            let step = try await store.delivery.fanOutStep(eventId: "e\(index)", batchSize: 10, now: time, handOff: 0)
            #expect(step.planned == 1)
            let claimed = try await store.delivery.claimDuePushes(now: time + 1, limit: 10, pausedApps: [])
            try #require(claimed.map(\.token) == ["t1"])
            pruned += try await store.delivery.complete([PushCompletion(push: claimed[0], result: result)], now: time + 2).tokensPruned
        }
        return pruned
    }

    func holdsToken(_ store: PortStores) async throws -> Bool {
        try await store.registry.installation(appId: "a", id: "i1", now: now)?.controls.map(\.pushToken) == ["t1"]
    }

    @Test(arguments: StoreBackend.available) func twoStrikesInARowRemoveTheToken(_ backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let pruned = try await answer(store, [.suspect(reason: "BadDeviceToken"), .suspect(reason: "BadDeviceToken")])
            let held = try await holdsToken(store)
            #expect(pruned == 1)
            #expect(!held)
        }
    }

    @Test(arguments: StoreBackend.available) func aDeliveryBetweenTwoStrikesKeepsTheToken(_ backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let results: [DeliveryResult] = [.suspect(reason: "BadDeviceToken"), .delivered, .suspect(reason: "DeviceTokenNotForTopic")]
            let pruned = try await answer(store, results)
            let held = try await holdsToken(store)
            #expect(pruned == 0)
            #expect(held)
        }
    }
}
