import Foundation
import SignalboxAPNs
import SignalboxMemoryStore
import SignalboxModel
import SignalboxTestSupport
import Synchronization
import Testing

/// The engine's rules end to end on the memory store: what each token receives, what each event is credited with.
@Suite struct DeliveryEngineTests {
    @Test func everyTokenGetsOnePushThroughPagesHandOffsAndClaims() async throws {
        try await Engine.run(configure: {
            // Small pages and few slots: hand-offs, waits for room and claims all take part.
            $0.fanOutBatch = 40
            $0.maxInFlight = 30
            $0.claimBatch = 20
        }) { engine in
            let tokens = try await engine.register(250)
            try await engine.post("e1")
            let status = try await engine.waitUntilDone("e1")
            #expect(engine.apns.counts == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) }), "nothing lost, nothing twice")
            #expect(status?.matched == 250 && status?.delivered == 250 && status?.coalesced == 0, "\(String(describing: status))")
            #expect(try await engine.store.outboxDepth() == 0)
        }
    }

    /// The first-page loop and the rounds both pick up a newly accepted event: one steps it, the other skips it
    /// (on a database the second would spend a transaction to learn the event is busy, while the new event waits).
    @Test func aNewEventIsSteppedByOneLoopAtATime() async throws {
        let pages = PageOverlaps()
        // Pages take a while, like a loaded database's, so that a second step of the event would overlap the first.
        try await Engine.run(configure: { $0.fanOutBatch = 40 }, wrap: { HookedStepStore(base: $0, before: pages.begin, after: pages.end) }) { engine in
            let tokens = try await engine.register(120)
            for event in ["e1", "e2", "e3"] {
                try await engine.post(event)
                let status = try await engine.waitUntilDone(event)
                #expect(status?.delivered == 120, "\(String(describing: status))")
            }
            let (all, overlapping) = pages.counts
            #expect(all >= 3 && overlapping == 0, "\(overlapping) of \(all) pages overlapped another of their event")
            #expect(engine.apns.counts == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 3) }), "nothing lost, nothing twice")
        }
    }

    /// An event accepted by this process gets its first page without a listing of the events to fan out first (a
    /// query on its way, on a loaded database): here listings are held, and its pushes still go out.
    @Test func anEventAcceptedHereIsPlannedWithoutAListing() async throws {
        let held = Mutex(true)
        try await Engine.run(wrap: {
            HookedStepStore(base: $0, before: { _ in }, listing: {
                while held.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
            })
        }) { engine in
            defer { held.withLock { $0 = false } }
            let tokens = try await engine.register(5)
            try await engine.post("e1")
            try await engine.waitUntil("e1's pushes sent while listings are held") {
                engine.apns.counts == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) })
            }
            held.withLock { $0 = false }
            #expect(try await engine.waitUntilDone("e1")?.delivered == 5)
        }
    }

    /// A lone event's rounds reuse their listing of the events to fan out (a statement on a database) instead of
    /// listing before each page, and another app's event accepted meanwhile is still listed and delivered. The
    /// engine's clock does not move here, so no listing grows old.
    @Test func aLoneEventsPagesAreNotEachPrecededByAListing() async throws {
        let listings = Atomic(0)
        try await Engine.run(configure: { $0.fanOutBatch = 10 }, wrap: {
            HookedStepStore(base: $0, before: { _ in }, listing: { listings.add(1, ordering: .relaxed) })
        }) { engine in
            let tokens = try await engine.register(600)
            try await engine.createApp("b")
            let others = try await engine.register(100, app: "b", firstToken: 0xB000)
            try await engine.post("e1")
            try await engine.waitUntil("e1 half planned") { try await engine.status("e1")?.matched ?? 0 >= 300 }
            try await engine.post("e2", app: "b")
            #expect(try await engine.waitUntilDone("e1")?.delivered == 600)
            #expect(try await engine.waitUntilDone("e2", app: "b")?.delivered == 100)
            let steps = try #require(engine.delivery as? HookedStepStore).steps(of: "e1")
            #expect(steps >= 50)
            #expect(listings.load(ordering: .relaxed) < steps / 4, "\(listings.load(ordering: .relaxed)) listings for \(steps) pages of e1")
            #expect(engine.apns.counts == Dictionary(uniqueKeysWithValues: (tokens + others).map { ($0, 1) }), "nothing lost, nothing twice")
        }
    }

    /// Answers being recorded when the engine stops are recorded all the same: left unrecorded, their pushes would be
    /// sent again after a restart. Here recording is held until the engine is told to stop, and then fails if its
    /// task was cancelled, as a database query does.
    @Test func answersBeingRecordedWhenTheEngineStopsAreRecorded() async throws {
        let gate = Gate()
        let entered = Atomic(0)
        let memory = Mutex<MemoryStore?>(nil)
        try await Engine.run(wrap: { store in
            memory.withLock { $0 = store }
            return HookedStepStore(base: store, before: { _ in }, completing: { _ in
                guard entered.add(1, ordering: .relaxed).oldValue == 0 else { return }
                await withTaskCancellationHandler { await gate.wait() } onCancel: { gate.open() }
                try Task.checkCancellation()
            })
        }, stopping: { gate.open() }) { engine in
            _ = try await engine.register(3)
            try await engine.post("e1")
            try await engine.waitUntil("all three sent and their answers being recorded") {
                engine.apns.counts.values.reduce(0, +) == 3 && entered.load(ordering: .relaxed) > 0
            }
        }
        let store = try #require(memory.withLock { $0 })
        #expect(try await store.eventStatus(appId: Engine.appId, id: "e1")?.delivered == 3)
        #expect(try await store.outboxDepth() == 0, "no push left claimed, to be sent again")
    }

    @Test func aRetryWaitsForItsTimeOnTheClock() async throws {
        let flaky = String(format: "%064x", 0xA000 + 7)
        try await Engine.run(answer: { token, attempt in
            token == flaky && attempt == 1 ? APNsResponse(status: 500, reason: .internalServerError) : APNsResponse(status: 200)
        }) { engine in
            let tokens = try await engine.register(10)
            try await engine.post("e1")
            // The 500 may be recorded in a later batch than the nine: wait for its retry as well.
            try await engine.waitUntil("the other nine delivered and the retry pending") {
                let retry = try await engine.store.nextDueDate(pausedApps: [])
                return try await engine.status("e1")?.delivered == 9 && retry != nil
            }
            // Its retry is due a second or more from now, and the engine's clock does not move by itself.
            #expect(try await engine.store.outboxDepth() == 1)
            #expect(engine.apns.counts[flaky] == 1)
            #expect(try await engine.store.nextDueDate(pausedApps: []).map { $0 > engine.clock.now } == true)
            engine.clock.advance(seconds: 3_600)
            let status = try await engine.waitUntilDone("e1")
            #expect(engine.apns.counts == Dictionary(uniqueKeysWithValues: tokens.map { ($0, $0 == flaky ? 2 : 1) }))
            #expect(status?.delivered == 10 && status?.failed == 0)
        }
    }

    @Test func anUnregisteredTokenIsRemovedAndCounted() async throws {
        let gone = String(format: "%064x", 0xA000 + 3)
        let since = Date(timeIntervalSince1970: 1_800_000_060)
        try await Engine.run(answer: { token, _ in
            token == gone ? APNsResponse(status: 410, reason: .unregistered, timestamp: since) : APNsResponse(status: 200)
        }) { engine in
            _ = try await engine.register(10)
            try await engine.post("e1")
            let status = try await engine.waitUntilDone("e1")
            #expect(status?.delivered == 9 && status?.pruned == 1, "\(String(describing: status))")
            let installation = try await engine.store.installation(appId: Engine.appId, id: "i0003", now: engine.clock.now)
            #expect(installation?.controls.isEmpty == true, "APNs said the token is gone since after it was registered")
            try await engine.post("e2")
            try await engine.waitUntilDone("e2")
            #expect(engine.apns.counts[gone] == 1, "a removed token is not pushed again")
        }
    }

    /// With `handOffAhead`, pushes wait planned and claimed beyond `maxInFlight`, but no more than `maxInFlight` are
    /// ever being sent, and each token still gets its push once.
    @Test func pushesHandedOffAheadWaitForTheConnectionsAndAreSentOnce() async throws {
        let gate = Mutex(true)
        let held = Mutex((now: 0, most: 0))
        try await Engine.run(configure: {
            $0.fanOutBatch = 10
            $0.maxInFlight = 10
            $0.handOffAhead = 10
        }, answer: { _, _ in
            held.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            while gate.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
            held.withLock { $0.now -= 1 }
            return APNsResponse(status: 200)
        }) { engine in
            let tokens = try await engine.register(50)
            try await engine.post("e1")
            try await engine.waitUntil("ten pushes held by APNs and e1 planned") {
                try await engine.status("e1")?.matched == 50 && engine.apns.counts.count == 10
            }
            gate.withLock { $0 = false }
            let status = try await engine.waitUntilDone("e1")
            #expect(status?.delivered == 50, "\(String(describing: status))")
            #expect(held.withLock { $0.most } == 10, "never more than maxInFlight sent at once")
            let counts = engine.apns.counts
            #expect(Set(counts.keys) == Set(tokens) && counts.values.allSatisfy { $0 == 1 })
        }
    }

    /// Another app's first push is handed off (sent at once, no claim) while a loud app's claims keep the slots
    /// full: claims stop short of the twentieth of the slots kept free for events' first pages.
    @Test func aNewcomersFirstPushIsHandedOffWhileAnotherAppsClaimsFillTheSlots() async throws {
        let quiet = String(format: "%064x", 0xB000)
        // How many more of the loud app's pushes APNs answers; the others wait.
        let answers = Mutex(0)
        try await Engine.run(configure: {
            $0.fanOutBatch = 40
            $0.maxInFlight = 40
            // Claims of a few: the dispatcher claims as soon as a slot is free (a claim waits for a quarter batch).
            $0.claimBatch = 4
        }, wrap: { HookedStepStore(base: $0, before: { _ in }) }, answer: { token, _ in
            while token != quiet {
                let answered = answers.withLock { count in
                    guard count > 0 else { return false }
                    count -= 1
                    return true
                }
                if answered { break }
                try? await Task.sleep(for: .milliseconds(2))
            }
            return APNsResponse(status: 200)
        }) { engine in
            // Whatever fails below, no answer stays held.
            defer { answers.withLock { $0 = .max / 2 } }
            let steps = try #require(engine.delivery as? HookedStepStore)
            let tokens = try await engine.register(100)
            try await engine.post("loud")
            try await engine.waitUntil("the loud event planned, 38 of its pushes (the slots less a twentieth) held by APNs") {
                try await engine.status("loud")?.matched == 100 && engine.apns.counts.count >= 38
            }
            // 30 answers free 30 slots, which the dispatcher fills again with claims of the loud app's pending pushes.
            answers.withLock { $0 = 30 }
            try await engine.waitUntil("30 answered and the freed slots claimed") {
                answers.withLock { $0 } == 0 && engine.apns.counts.count >= 68
            }
            try await engine.createApp("b")
            _ = try await engine.register(1, app: "b", firstToken: 0xB000)
            try await engine.post("quiet", app: "b")
            try await engine.waitUntil("the quiet event's page planned") { !steps.steps(endedOf: "quiet").isEmpty }
            let handedOff = steps.steps(endedOf: "quiet").first?.handedOff.count
            #expect(handedOff == 1, "handed off, not stored to wait for slots and a claim")
            // Else it waits for the loud app's answers, held until the test ends.
            guard handedOff == 1 else { return }
            try await engine.waitUntil("the quiet push sent while the loud app's answers are held") { engine.apns.counts[quiet] == 1 }
            answers.withLock { $0 = .max / 2 }
            #expect(try await engine.waitUntilDone("loud")?.delivered == 100)
            #expect(try await engine.waitUntilDone("quiet", app: "b")?.delivered == 1)
            #expect(engine.apns.counts == Dictionary(uniqueKeysWithValues: (tokens + [quiet]).map { ($0, 1) }), "nothing lost, nothing twice")
        }
    }

    /// A push planned while a pending push with the same token and payload waits is absorbed into it: the token
    /// gets one push for both events, and both events are credited with its answer.
    @Test func aPendingPushAbsorbsItsTwinAndCreditsBothEvents() async throws {
        let gate = Mutex(true)
        try await Engine.run(configure: {
            $0.fanOutBatch = 50
            $0.maxInFlight = 10
        }, answer: { _, _ in
            while gate.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(2)) }
            return APNsResponse(status: 200)
        }) { engine in
            let tokens = try await engine.register(50)
            try await engine.post("e1")
            // Ten pushes of e1 are held by APNs and the other forty pending (a lone app's pages are small here and
            // each waits for room, so e2 would otherwise plan some tokens before e1); then e2 is planned behind them.
            try await engine.waitUntil("e1 planned") { try await engine.status("e1")?.matched == 50 }
            try await engine.post("e2")
            try await engine.waitUntil("both events planned") {
                try await engine.status("e2")?.matched == 50 && engine.apns.counts.count == 10
            }
            let coalesced = try #require(try await engine.status("e2")?.coalesced)
            #expect(coalesced == 40, "e2's pushes to the forty pending tokens were absorbed")
            gate.withLock { $0 = false }
            let first = try await engine.waitUntilDone("e1")
            let second = try await engine.waitUntilDone("e2")
            #expect(first?.delivered == 50 && second?.delivered == 50, "\(String(describing: first)) \(String(describing: second))")
            let counts = engine.apns.counts
            #expect(Set(counts.keys) == Set(tokens))
            #expect(counts.values.filter { $0 == 2 }.count == 50 - coalesced, "only tokens whose push was already in flight got two")
            #expect(counts.values.allSatisfy { $0 == 1 || $0 == 2 })
        }
    }
}

/// Counts fan-out pages, and those that began while another page of the same event was under way.
final class PageOverlaps: Sendable {
    private let state = Mutex<(running: [String: Int], all: Int, overlapping: Int)>(([:], 0, 0))

    var counts: (all: Int, overlapping: Int) { state.withLock { ($0.all, $0.overlapping) } }

    @Sendable func begin(_ eventId: String) async throws {
        state.withLock { state in
            state.all += 1
            state.overlapping += state.running[eventId, default: 0] > 0 ? 1 : 0
            state.running[eventId, default: 0] += 1
        }
        try await Task.sleep(for: .milliseconds(30))
    }

    @Sendable func end(_ eventId: String) { state.withLock { $0.running[eventId, default: 1] -= 1 } }
}
