import Foundation
import Logging
import SignalboxAPI
import SignalboxMemoryStore
import SignalboxModel
@testable import SignalboxDelivery
@testable import SignalboxServer
import SignalboxStore
import SignalboxStoreTestSupport
import Synchronization
import Testing

/// Apps share the fan-out and the claim; finished events are purged after their retention; an event whose
/// fan-out keeps failing is given up (on every backend, the memory store included).
@Suite struct FairnessStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func event(_ id: String, app: String, createdAt: Date) -> EventRecord {
        EventRecord(
            id: id, appId: app, request: EventRequest(target: .controls(kinds: ["door"], configuration: nil), audience: .all),
            createdAt: createdAt
        )
    }

    /// A fresh store with apps `a` and `b`; `tokens[app]` controls registered, one installation each.
    func withStore(_ backend: StoreBackend, tokens: [String: Int], _ body: (PortStores) async throws -> Void) async throws {
        try await backend.withStore { store in
            for app in ["a", "b"] {
                try await store.registry.createApp(AppRecord.fixture(app))
                for index in 0..<tokens[app, default: 0] {
                    let id = String(format: "i%04d", index)
                    try await store.registry.putInstallation(appId: app, Installation(id: id, userId: nil, channels: [], environment: .sandbox), now: now)
                    try await store.registry.putControls(appId: app, installationId: id, [Control(kind: "door", pushToken: "\(app == "a" ? "0a" : "0b")\(String(format: "%04d", index))")], now: now)
                }
            }
            try await body(store)
        }
    }

    @Test(arguments: StoreBackend.available) func theClaimTakesTurnsBetweenApps(_ backend: StoreBackend) async throws { try await withStore(backend, tokens: ["a": 50, "b": 2]) { store in
        try await store.delivery.createEvent(event("ea", app: "a", createdAt: now))
        try await store.delivery.createEvent(event("eb", app: "b", createdAt: now + 1))
        _ = try await store.delivery.fanOutStep(eventId: "ea", batchSize: 100, now: now + 2, handOff: 0)
        _ = try await store.delivery.fanOutStep(eventId: "eb", batchSize: 100, now: now + 2, handOff: 0)
        // Oldest first across all apps would give ten of a's; in turns, b's two come in the first claim.
        let first = try await store.delivery.claimDuePushes(now: now + 2, limit: 10, pausedApps: [])
        #expect(first.count == 10)
        #expect(first.filter { $0.appId == "b" }.count == 2)
        #expect(try await store.delivery.nextDueDate(pausedApps: []) == now, "a's remaining pushes are due")
        #expect(try await store.delivery.nextDueDate(pausedApps: ["a"]) == nil, "b has none left")
        // A paused app gives nothing; the rest of a's come in the next claims, each once.
        #expect(try await store.delivery.claimDuePushes(now: now + 2, limit: 100, pausedApps: ["a"]).isEmpty)
        let rest = try await store.delivery.claimDuePushes(now: now + 2, limit: 100, pausedApps: [])
        #expect(rest.count == 42 && rest.allSatisfy { $0.appId == "a" })
        #expect(Set((first + rest).map(\.token)).count == 52)
    } }

    @Test(arguments: StoreBackend.available) func eachAppsOldestEventIsFannedOutInTurns(_ backend: StoreBackend) async throws { try await withStore(backend, tokens: ["a": 3, "b": 1]) { store in
        try await store.delivery.createEvent(event("a1", app: "a", createdAt: now))
        try await store.delivery.createEvent(event("a2", app: "a", createdAt: now + 1))
        try await store.delivery.createEvent(event("b1", app: "b", createdAt: now + 2))
        #expect(try await store.delivery.eventsToFanOut(limit: 10).map(\.id) == ["a1", "b1"])
        // The app with pushes in flight goes after the newcomer.
        let round = FairShare.round(try await store.delivery.eventsToFanOut(limit: 10), inFlight: ["a": 100])
        #expect(round.map(\.id) == ["b1", "a1"])
        #expect(FairShare.handOffLimit(2_000, apps: 1) == 1_900 && FairShare.handOffLimit(2_000, apps: 2) == 1_000)
        #expect(FairShare.handOffLimit(10, apps: 1) == 10 && FairShare.handOffLimit(1, apps: 1) == 1, "a small limit keeps every slot")
        // A lone app's page fits its hand-off limit twice; beside another app's, or smaller already, it keeps its size.
        #expect(FairShare.pageSize(500, handOffLimit: 1_000, apps: 1) == 475 && FairShare.pageSize(500, handOffLimit: 1_000, apps: 2) == 500)
        #expect(FairShare.pageSize(32, handOffLimit: 1_000, apps: 1) == 32 && FairShare.pageSize(500, handOffLimit: 1, apps: 1) == 1)
        #expect(FairShare.pageSize(500, handOffLimit: 0, apps: 1) == 500, "without a hand-off the page is stored pending whole")
        _ = try await store.delivery.fanOutStep(eventId: "a1", batchSize: 10, now: now, handOff: 0)
        #expect(try await store.delivery.eventsToFanOut(limit: 10).map(\.id) == ["a2", "b1"])
    } }

    @Test(arguments: StoreBackend.available) func finishedEventsArePurgedAfterTheirRetention(_ backend: StoreBackend) async throws { try await withStore(backend, tokens: ["a": 2]) { store in
        let day: TimeInterval = 86_400
        // done (old), failed (old), done (recent), still delivering (old).
        for (id, age) in [("done-old", 8 * day), ("failed-old", 8 * day), ("done-recent", 6 * day), ("busy-old", 8 * day)] {
            try await store.delivery.createEvent(event(id, app: "a", createdAt: now - age))
        }
        for id in ["done-old", "done-recent", "busy-old"] {
            let step = try await store.delivery.fanOutStep(eventId: id, batchSize: 10, now: now, handOff: 10)
            #expect(step.finished && step.handedOff.count == 2)
            if id != "busy-old" {
                _ = try await store.delivery.complete(step.handedOff.map { PushCompletion(push: $0, result: .delivered) }, now: now)
            }
        }
        try await store.delivery.failEvent(id: "failed-old", reason: "fan-out failed 5 times in a row", now: Date())
        #expect(try await store.delivery.eventStatus(appId: "a", id: "failed-old")?.reason == "fan-out failed 5 times in a row")
        #expect(try await store.delivery.eventStatus(appId: "a", id: "done-old")?.state == .done)

        let retention = EventRetention(store: store.delivery, retention: .seconds(7 * 86_400), now: { [now] in now })
        #expect(try await retention.purge() == 2)
        #expect(try await store.delivery.eventStatus(appId: "a", id: "done-old") == nil)
        #expect(try await store.delivery.eventStatus(appId: "a", id: "failed-old") == nil)
        #expect(try await store.delivery.eventStatus(appId: "a", id: "done-recent")?.state == .done)
        #expect(try await store.delivery.eventStatus(appId: "a", id: "busy-old")?.state == .delivering, "pushes still owed: kept")

        // Two days later the recent one goes too.
        let later = EventRetention(store: store.delivery, retention: .seconds(7 * 86_400), now: { [now] in now + 2 * day })
        #expect(try await later.purge() == 1)
        #expect(try await store.delivery.eventStatus(appId: "a", id: "done-recent") == nil)
    } }

    @Test(arguments: StoreBackend.available) func anEventWhoseFanOutKeepsFailingIsGivenUpWhileOthersGoOn(_ backend: StoreBackend) async throws { try await withStore(backend, tokens: ["a": 3, "b": 1]) { store in
        // The oldest event, of app a, fails every step; a later event of a and one of b must still be fanned out.
        try await store.delivery.createEvent(event("bad", app: "a", createdAt: now))
        try await store.delivery.createEvent(event("a2", app: "a", createdAt: now + 1))
        try await store.delivery.createEvent(event("b1", app: "b", createdAt: now + 2))
        var configuration = DeliveryConfiguration()
        configuration.fanOutAttempts = 3
        // Retries 0.3 s and 0.6 s apart: app b's event must be fanned out while app a's is still being retried.
        configuration.fanOutRetryDelay = .milliseconds(300)
        // The last failing step waits until the test has seen app b go on (or gave up looking), so the event is not
        // given up before a loaded run looks: a gate, not a window. The rounds step b's event before a's retries.
        let (seen, seeing) = AsyncStream<Void>.makeStream()
        let badSteps = StepCount()
        let failing = HookedStepStore(base: store.delivery) { [attempts = configuration.fanOutAttempts] id in
            guard id == "bad" else { return }
            if badSteps.next() == attempts { for await _ in seen { break } }
            throw HookedStepStore.Injected()
        }
        let service = FanOutService(store: failing, signals: DeliverySignals(), configuration: configuration, logger: Logger(label: "test"))
        let runner = Task { try await service.run() }
        let deadline = ContinuousClock.now + .seconds(120)
        var statuses: [String: EventStatus] = [:]
        var otherAppWentOnMeanwhile = false
        repeat {
            try await Task.sleep(for: .milliseconds(20))
            for id in ["bad", "a2"] { statuses[id] = try await store.delivery.eventStatus(appId: "a", id: id) }
            statuses["b1"] = try await store.delivery.eventStatus(appId: "b", id: "b1")
            if statuses["b1"]?.state == .delivering, statuses["bad"]?.state != .failed {
                otherAppWentOnMeanwhile = true
                seeing.finish()
            }
        } while (statuses["bad"]?.state != .failed || statuses["a2"]?.state != .delivering) && ContinuousClock.now < deadline
        seeing.finish()
        runner.cancel()
        _ = await runner.result
        #expect(otherAppWentOnMeanwhile, "app b waited for app a's failing event")
        #expect(statuses["bad"]?.state == .failed)
        #expect(statuses["bad"]?.reason == "fan-out failed 3 times in a row")
        #expect(failing.steps(of: "bad") == 3, "tried exactly as often as configured")
        #expect(statuses["b1"]?.state == .delivering && statuses["b1"]?.matched == 1)
        #expect(statuses["a2"]?.state == .delivering && statuses["a2"]?.matched == 3)
        // Each planned push is in the outbox once.
        let claimed = try await store.delivery.claimDuePushes(now: now + 10, limit: 100, pausedApps: [])
        #expect(claimed.count == 4 && Set(claimed.map(\.token)).count == 4)
    } }
}

extension FairnessStoreTests {
    /// App b's new event is planned while app a's step is under way (held open here), not after it: a quiet app's
    /// push waits for no loud app's page.
    @Test(arguments: StoreBackend.available) func aNewEventsFirstPageIsPlannedDuringAnotherAppsStep(_ backend: StoreBackend) async throws {
        try await withStore(backend, tokens: ["a": 3, "b": 1]) { store in
            try await store.delivery.createEvent(event("ea", app: "a", createdAt: now))
            let (release, releasing) = AsyncStream<Void>.makeStream()
            let held = HookedStepStore(base: store.delivery) { id in
                if id == "ea" { for await _ in release { break } }
            }
            let signals = DeliverySignals()
            let service = FanOutService(store: held, signals: signals, configuration: DeliveryConfiguration(), logger: Logger(label: "test"))
            let runner = Task { try await service.run() }
            let deadline = ContinuousClock.now + .seconds(60)
            // App a's step is held.
            while held.steps(of: "ea") == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            // Accepted here, as the events route does.
            let quietEvent = event("eb", app: "b", createdAt: now + 1)
            try await store.delivery.createEvent(quietEvent)
            signals.eventAccepted(quietEvent.queued)
            var quiet = try await store.delivery.eventStatus(appId: "b", id: "eb")
            while quiet?.state != .delivering, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                quiet = try await store.delivery.eventStatus(appId: "b", id: "eb")
            }
            let loud = try await store.delivery.eventStatus(appId: "a", id: "ea")
            releasing.finish()
            var done = loud
            while done?.state != .delivering, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                done = try await store.delivery.eventStatus(appId: "a", id: "ea")
            }
            runner.cancel()
            _ = await runner.result
            #expect(quiet?.state == .delivering && quiet?.matched == 1, "app b's event waited for app a's step")
            #expect(loud?.matched == 0, "app a's step was still held when b's was planned")
            #expect(done?.state == .delivering && done?.matched == 3)
            let claimed = try await store.delivery.claimDuePushes(now: now + 10, limit: 100, pausedApps: [])
            #expect(claimed.count == 4 && Set(claimed.map(\.token)).count == 4, "each planned push once")
        }
    }
}

/// Counts calls from any task (a hook's steps of one event).
final class StepCount: Sendable {
    private let count = Mutex(0)

    /// Counts one more and returns the count, this one included.
    func next() -> Int { count.withLock { $0 += 1; return $0 } }
}
