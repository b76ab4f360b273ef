import Foundation
import SignalboxAPI
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// `IdempotencyStore` on every backend: a key acts once per app within its window, whatever the race.
@Suite struct IdempotencyStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func event(_ id: String, app: String = "a", at time: Date? = nil) -> EventRecord {
        EventRecord(id: id, appId: app, request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all), createdAt: time ?? now)
    }

    func request(_ key: String, app: String = "a", fingerprint: String = "f1", at time: Date? = nil) -> IdempotentRequest {
        IdempotentRequest(appId: app, key: key, fingerprint: fingerprint, at: time ?? now)
    }

    static let accepted = StoredAnswer(status: 202, body: #"{"eventId":"e1"}"#)

    @Test(arguments: Backend.available) func anEventsKeyStoresOneEventAndAnswersItsFirstAnswer(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            try await store.registry.createApp(AppRecord.fixture("b"))
            #expect(try await store.idempotency.createEvent(event("e1"), idempotency: request("k"), answer: Self.accepted) == .claimed)
            let retry = try await store.idempotency.createEvent(event("e2", at: now + 60), idempotency: request("k", at: now + 60), answer: StoredAnswer(status: 202, body: "other"))
            #expect(retry == .replay(Self.accepted), "the first answer, not the retry's")
            #expect(try await store.delivery.eventStatus(appId: "a", id: "e2") == nil, "the retry stored no event")
            #expect(try await store.delivery.eventStatus(appId: "a", id: "e1") != nil)
            let other = try await store.idempotency.createEvent(event("e3"), idempotency: request("k", fingerprint: "f2", at: now + 60), answer: Self.accepted)
            #expect(other == .mismatch)
            #expect(try await store.delivery.eventStatus(appId: "a", id: "e3") == nil)
            // Keys are per app.
            #expect(try await store.idempotency.createEvent(event("e4", app: "b"), idempotency: request("k", app: "b"), answer: Self.accepted) == .claimed)
            // After 24 hours the key is new again, even before it is pruned.
            let later = now + IdempotentRequest.window.seconds
            #expect(try await store.idempotency.createEvent(event("e5", at: later), idempotency: request("k", fingerprint: "f2", at: later), answer: Self.accepted) == .claimed)
            #expect(try await store.delivery.eventStatus(appId: "a", id: "e5") != nil)
        }
    }

    @Test(arguments: Backend.available) func aClaimIsHeldAnsweredReleasedOrTakenOverWhenAbandoned(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            let push = request("p")
            #expect(try await store.idempotency.claimIdempotencyKey(push) == .claimed)
            #expect(try await store.idempotency.claimIdempotencyKey(request("p", at: now + 1)) == .inProgress)
            #expect(try await store.idempotency.claimIdempotencyKey(request("p", fingerprint: "f2", at: now + 1)) == .mismatch)
            // A refused request gives its key back.
            try await store.idempotency.releaseIdempotencyKey(push)
            #expect(try await store.idempotency.claimIdempotencyKey(request("p", at: now + 2)) == .claimed)
            let answer = StoredAnswer(status: 200, body: #"{"outcome":"delivered","status":200}"#)
            try await store.idempotency.recordIdempotentAnswer(request("p", at: now + 2), answer)
            #expect(try await store.idempotency.claimIdempotencyKey(request("p", at: now + 3)) == .replay(answer))
            try await store.idempotency.releaseIdempotencyKey(push)
            #expect(try await store.idempotency.claimIdempotencyKey(request("p", at: now + 4)) == .replay(answer), "an answered key is never released")
            // A claim whose process died is taken over once it is old enough.
            #expect(try await store.idempotency.claimIdempotencyKey(request("q")) == .claimed)
            let abandoned = now + IdempotentRequest.abandonedAfter.seconds
            #expect(try await store.idempotency.claimIdempotencyKey(request("q", at: abandoned - 1)) == .inProgress)
            #expect(try await store.idempotency.claimIdempotencyKey(request("q", at: abandoned)) == .claimed)
        }
    }

    @Test(arguments: Backend.available) func keysArePrunedAfterTheirWindowAndWithTheirApp(_ backend: Backend) async throws {
        try await backend.withStore { store in
            try await store.registry.createApp(AppRecord.fixture("a"))
            try await store.registry.createApp(AppRecord.fixture("b"))
            #expect(try await store.idempotency.claimIdempotencyKey(request("old")) == .claimed)
            #expect(try await store.idempotency.claimIdempotencyKey(request("new", at: now + 3_600)) == .claimed)
            #expect(try await store.idempotency.claimIdempotencyKey(request("gone", app: "b")) == .claimed)
            #expect(try await store.registry.deleteApp(id: "b"))
            #expect(try await store.idempotency.pruneIdempotencyKeys(before: now + 1) == 1)
            #expect(try await store.idempotency.claimIdempotencyKey(request("new", at: now + 3_601)) == .inProgress, "a younger key stays")
            #expect(try await store.idempotency.claimIdempotencyKey(request("old", fingerprint: "f2", at: now + 3_601)) == .claimed)
            try await store.registry.createApp(AppRecord.fixture("b"))
            #expect(try await store.idempotency.claimIdempotencyKey(request("gone", app: "b", fingerprint: "f2")) == .claimed, "the deleted app's keys went with it")
        }
    }

    /// Many requests with one key at once, from two instances on PostgreSQL: one event, every other answer a replay.
    @Test(arguments: Backend.available) func racingRequestsWithOneKeyStoreOneEvent(_ backend: Backend) async throws {
        try await backend.withStores(backend == .postgres ? 2 : 1) { stores in
            try await stores[0].registry.createApp(AppRecord.fixture("a"))
            let ids = (0..<16).map { "race\($0)" }
            let claims = try await withThrowingTaskGroup(of: IdempotencyClaim.self) { group in
                for (index, id) in ids.enumerated() {
                    let store = stores[index % stores.count]
                    let answer = StoredAnswer(status: 202, body: id)
                    group.addTask { try await store.idempotency.createEvent(event(id), idempotency: request("same"), answer: answer) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(claims.filter { $0 == .claimed }.count == 1)
            var stored: [String] = []
            for id in ids where try await stores[0].delivery.eventStatus(appId: "a", id: id) != nil { stored.append(id) }
            #expect(stored.count == 1, "one event for one key")
            let first = StoredAnswer(status: 202, body: try #require(stored.first))
            #expect(claims.filter { $0 == .replay(first) }.count == ids.count - 1, "every other request answered the winner's answer")
        }
    }
}
