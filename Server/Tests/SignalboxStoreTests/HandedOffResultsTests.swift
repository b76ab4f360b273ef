import Foundation
import SignalboxAPI
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// Results of handed-off pushes: each is recorded once, a retry goes back to pending, and a stopped owner's
/// unanswered pushes (and only those) come back to the next process.
@Suite struct HandedOffResultsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// App `a` with one control per token on installations of distinct users, and event `e1` to all of them.
    func seed(_ store: PortStores, tokens: [String]) async throws {
        try await store.registry.createApp(AppRecord.fixture("a"))
        for (index, token) in tokens.enumerated() {
            try await store.registry.putInstallation(appId: "a", Installation(id: "i\(index)", userId: "u\(index)", channels: [], environment: .sandbox), now: now)
            try await store.registry.putControls(appId: "a", installationId: "i\(index)", [Control(kind: "door", pushToken: token)], now: now)
        }
        try await store.delivery.createEvent(EventRecord(
            id: "e1", appId: "a", request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all), createdAt: now
        ))
    }

    /// Fans `e1` out in pages of `batch`, handing off every push. - Returns: the pushes handed off.
    func handOffAll(_ store: PortStores, batch: Int) async throws -> [OutboxPush] {
        var handedOff: [OutboxPush] = []
        var step = FanOutStep(planned: 0, coalesced: 0, finished: false)
        while !step.finished {
            step = try await store.delivery.fanOutStep(eventId: "e1", batchSize: batch, now: now, handOff: 100)
            handedOff += step.handedOff
        }
        return handedOff
    }

    @Test(arguments: StoreBackend.available) func aStoppedOwnersUnansweredPushesComeBackAndNoOthers(_ backend: StoreBackend) async throws {
        try await backend.withStores(2) { stores in
            let (gone, next) = (stores[0], stores[1])
            try await seed(gone, tokens: ["01", "02", "03"])
            let handedOff = try await handOffAll(gone, batch: 10)
            let push = { (token: String) in try #require(handedOff.first { $0.token == token }) }
            #expect(handedOff.count == 3)

            // 01 delivered, 02 back to pending for a retry later, 03 unanswered when the owner stops.
            let first = try await gone.delivery.complete(
                [PushCompletion(push: try push("01"), result: .delivered), PushCompletion(push: try push("02"), result: .retry(at: now + 5))], now: now + 1
            )
            #expect(first.claimsLost == 0)
            let again = try await gone.delivery.complete([PushCompletion(push: try push("01"), result: .delivered)], now: now + 1)
            #expect(again.claimsLost == 1, "a result already recorded is not recorded twice")
            #expect(try await gone.delivery.outboxDepth() == 2)
            #expect(try await gone.delivery.claimDuePushes(now: now + 1, limit: 10, pausedApps: []).isEmpty, "02 is due later, 03 is claimed")

            #expect(try await next.delivery.releaseClaims(now: now + 3_600) == 1, "only 03 was unanswered")
            let late = try await gone.delivery.complete([PushCompletion(push: try push("03"), result: .delivered)], now: now + 3_601)
            #expect(late.claimsLost == 1, "the stopped owner's late answer is fenced out")

            let retaken = try await next.delivery.claimDuePushes(now: now + 3_602, limit: 10, pausedApps: [])
            #expect(retaken.map(\.token).sorted() == ["02", "03"])
            #expect(retaken.first { $0.token == "02" }?.attempts == 1 && retaken.first { $0.token == "03" }?.attempts == 0)
            _ = try await next.delivery.complete(retaken.map { PushCompletion(push: $0, result: .delivered) }, now: now + 3_603)
            let status = try #require(try await next.delivery.eventStatus(appId: "a", id: "e1"))
            #expect(status.matched == 3 && status.delivered == 3 && status.state == .done)
            #expect(try await next.delivery.outboxDepth() == 0)
        }
    }

    /// One token on two installations planned in two pages: both pushes are handed off. Retried in one batch, they
    /// become one pending push that carries the other, and the event still gets both outcomes.
    @Test(arguments: StoreBackend.available) func retriesOfOneTokenFromTwoPagesBecomeOnePendingPush(_ backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await seed(store, tokens: ["0a", "0a"])
            let handedOff = try await handOffAll(store, batch: 1)
            #expect(handedOff.map(\.token) == ["0a", "0a"])
            let retried = try await store.delivery.complete(handedOff.map { PushCompletion(push: $0, result: .retry(at: now + 1)) }, now: now + 1)
            #expect(retried.claimsLost == 0)
            #expect(try await store.delivery.outboxDepth() == 1)
            let claimed = try await store.delivery.claimDuePushes(now: now + 1, limit: 10, pausedApps: [])
            #expect(claimed.count == 1 && claimed.first?.carriesAbsorbedEvents == true && claimed.first?.attempts == 1)
            _ = try await store.delivery.complete(claimed.map { PushCompletion(push: $0, result: .delivered) }, now: now + 2)
            let status = try #require(try await store.delivery.eventStatus(appId: "a", id: "e1"))
            #expect(status.matched == 2 && status.delivered == 2 && status.state == .done)
        }
    }
}
