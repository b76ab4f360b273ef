import Foundation
import SignalboxAPI
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// `fanOutStep(handOff:)`: pushes due now are stored already claimed and returned, never claimable twice;
/// a pending twin still absorbs a new push; what exceeds the hand-off stays pending for a claim.
@Suite struct FanOutHandOffTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func event(_ id: String, createdAt: Date) -> EventRecord {
        EventRecord(
            id: id, appId: "a", request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all),
            createdAt: createdAt
        )
    }

    /// A fresh store with app `a`.
    func withStore(_ backend: StoreBackend, _ body: (PortStores) async throws -> Void) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            try await body(store)
        }
    }

    @Test(arguments: StoreBackend.available) func pushesDueNowAreHandedOffClaimedAndOnlyOnce(_ backend: StoreBackend) async throws { try await backend.withStores(2) { stores in
        let (store, restarted) = (stores[0], stores[1])
        try await store.registry.createApp(AppRecord.fixture("a"))
        for index in 1...5 {
            try await store.registry.putInstallation(appId: "a", Installation(id: "i\(index)", userId: nil, channels: [], environment: .sandbox), now: now)
            try await store.registry.putControls(appId: "a", installationId: "i\(index)", [Control(kind: "door", pushToken: "0\(index)")], now: now)
        }

        // First event: three of five handed off, two left pending.
        try await store.delivery.createEvent(event("e1", createdAt: now))
        let first = try await store.delivery.fanOutStep(eventId: "e1", batchSize: 10, now: now, handOff: 3)
        #expect(first.planned == 5 && first.coalesced == 0 && first.finished)
        #expect(first.handedOff.map(\.token).sorted() == ["01", "02", "03"])
        #expect(first.handedOff.allSatisfy { $0.eventId == "e1" && $0.attempts == 0 && $0.kind == .controls })
        let claimed = try await store.delivery.claimDuePushes(now: now, limit: 100, pausedApps: [])
        #expect(claimed.map(\.token).sorted() == ["04", "05"], "handed-off pushes are already claimed")

        // Second event: its push for a token with a pending twin is absorbed, not handed off. Return 04 to pending first.
        let retry = PushCompletion(push: try #require(claimed.first { $0.token == "04" }), result: .retry(at: now))
        _ = try await store.delivery.complete([retry], now: now)
        try await store.delivery.createEvent(event("e2", createdAt: now + 1))
        let second = try await store.delivery.fanOutStep(eventId: "e2", batchSize: 10, now: now + 1, handOff: 10)
        #expect(second.coalesced == 1)
        #expect(second.handedOff.map(\.token).sorted() == ["01", "02", "03", "05"])

        // A stop before results are recorded: the next process (a second store on the database) gets every claim
        // back once their lease has ended (at once on SQLite), handed off or not, twins merged.
        #expect(try await restarted.delivery.releaseClaims(now: now + 1) == (backend.ownedByOneProcess ? 8 : 0), "a live lease is kept")
        try await restarted.delivery.releaseClaims(now: now + 3_600)
        let released = try await restarted.delivery.claimDuePushes(now: now + 1, limit: 100, pausedApps: [])
        #expect(released.map(\.token).sorted() == ["01", "02", "03", "04", "05"])
        #expect(released.allSatisfy { $0.carriesAbsorbedEvents }, "each carries the other event too")
    } }

    @Test(arguments: StoreBackend.available) func pushesDueLaterAreNotHandedOff(_ backend: StoreBackend) async throws { try await withStore(backend) { store in
        try await store.registry.putInstallation(appId: "a", Installation(id: "i", userId: nil, channels: [], environment: .sandbox), now: now)
        try await store.registry.putControls(appId: "a", installationId: "i", [Control(kind: "door", pushToken: "01")], now: now)
        try await store.delivery.createEvent(event("e", createdAt: now + 60))
        let step = try await store.delivery.fanOutStep(eventId: "e", batchSize: 10, now: now, handOff: 10)
        #expect(step.planned == 1 && step.handedOff.isEmpty)
    } }

    /// Installations of different users may hold one token; pages planned apart give it one push each, and the later
    /// ones are absorbed into the first. Every planned push gets an outcome, also when the survivor is itself absorbed
    /// on its way back to pending, so the events finish.
    @Test(arguments: StoreBackend.available) func aTokenReachedThroughSeveralInstallationsCreditsEachPlannedPush(_ backend: StoreBackend) async throws { try await withStore(backend) { store in
        for (index, user) in ["u1", "u2", "u3"].enumerated() {
            try await store.registry.putInstallation(appId: "a", Installation(id: "i\(index)", userId: user, channels: [], environment: .sandbox), now: now)
            try await store.registry.putControls(appId: "a", installationId: "i\(index)", [Control(kind: "door", pushToken: "0a")], now: now)
        }
        func fanOut(_ id: String, at time: Date) async throws -> (planned: Int, coalesced: Int) {
            try await store.delivery.createEvent(event(id, createdAt: time))
            var steps: [FanOutStep] = []
            repeat { steps.append(try await store.delivery.fanOutStep(eventId: id, batchSize: 1, now: time, handOff: 0)) } while steps.last?.finished == false
            return (steps.map(\.planned).reduce(0, +), steps.map(\.coalesced).reduce(0, +))
        }
        #expect(try await fanOut("e1", at: now) == (3, 2))
        let first = try await store.delivery.claimDuePushes(now: now, limit: 10, pausedApps: [])
        #expect(first.count == 1 && first.first?.carriesAbsorbedEvents == true)
        // While it is out, e2 plans a push of its own to the token; the retry then joins that one with all it carries.
        #expect(try await fanOut("e2", at: now + 1) == (3, 2))
        _ = try await store.delivery.complete(first.map { PushCompletion(push: $0, result: .retry(at: now + 1)) }, now: now + 1)
        #expect(try await store.delivery.outboxDepth() == 1)
        let second = try await store.delivery.claimDuePushes(now: now + 2, limit: 10, pausedApps: [])
        #expect(second.count == 1)
        _ = try await store.delivery.complete(second.map { PushCompletion(push: $0, result: .delivered) }, now: now + 2)
        for id in ["e1", "e2"] {
            let status = try #require(try await store.delivery.eventStatus(appId: "a", id: id))
            #expect(status.matched == 3 && status.delivered == 3 && status.state == .done, "\(id)")
        }
    } }
}
