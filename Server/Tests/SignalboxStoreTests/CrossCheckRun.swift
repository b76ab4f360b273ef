import APNsSimulator
import Foundation
import SignalboxAPI
import SignalboxMemoryStore
import SignalboxModel
import SignalboxStoreTestSupport
import Testing

/// One seeded sequence of the cross-check: draws each operation, applies it to every replica, compares.
struct CrossCheckRun {
    let seed: UInt64
    var replicas: [CrossCheckReplica]
    var draw: CrossCheckDraw
    var now = Date(timeIntervalSince1970: 1_800_000_000)
    var events: [String] = []
    var log: [String] = []

    init(seed: UInt64, replicas: [CrossCheckReplica]) {
        self.seed = seed
        self.replicas = replicas
        draw = CrossCheckDraw(random: SeededGenerator(seed: seed), apps: ["s\(seed)a", "s\(seed)b"])
    }

    /// The reference: the memory store.
    var memory: MemoryStore { replicas[0].store.registry as! MemoryStore }

    /// - Returns: the first mismatch, described with the operations that led to it, or nil.
    mutating func run(operations: Int) async throws -> String? {
        for app in draw.apps {
            for replica in replicas { try await replica.store.registry.createApp(AppRecord.fixture(app, keyHash: app)) }
        }
        // First every installation registers something, so that events have audiences from the start.
        var prelude: [CrossCheckOperation] = []
        for app in draw.apps {
            for id in draw.installationIds {
                var installation = draw.installation()
                installation.id = id
                prelude.append(.putInstallation(app: app, installation, maxPerUser: nil, revision: nil))
                if draw.chance(80) { prelude.append(.putControls(app: app, installation: id, draw.controls(), revision: nil)) }
                if draw.chance(70) { prelude.append(.putWidgets(app: app, installation: id, draw.widgets())) }
                if draw.chance(60) { prelude.append(.putFileProvider(app: app, installation: id, draw.fileProvider())) }
            }
        }
        for operation in prelude {
            if let mismatch = try await step(operation, observing: .none) { return mismatch }
        }
        if let mismatch = try await compareObservations(.all) { return mismatch }
        for index in 0..<operations {
            now += Double(draw.number(1...50)) / 1000
            let operation = try await next()
            // Every installation now and then and at the end, so time passing (enumerators ending) is seen too.
            let observing = index % 20 == 19 || index == operations - 1 ? .all : operation.changedApps
            if let mismatch = try await step(operation, observing: observing) { return mismatch }
        }
        return nil
    }

    /// Applies one operation everywhere and compares the answers, then what every backend shows.
    private mutating func step(_ operation: CrossCheckOperation, observing apps: CrossCheckOperation.ChangedApps) async throws -> String? {
        log.append("\(log.count): \(operation)")
        var answers: [String] = []
        for index in replicas.indices { answers.append(await apply(operation, to: index)) }
        for index in replicas.indices.dropFirst() where answers[index] != answers[0] {
            return mismatch("answers differ: \(replicas[0].name) \(answers[0])\n\(replicas[index].name) \(answers[index])")
        }
        return try await compareObservations(apps)
    }

    /// Compares what every replica shows now: outbox, events, and the installations of `apps`.
    private func compareObservations(_ apps: CrossCheckOperation.ChangedApps) async throws -> String? {
        var observations: [CrossCheckObservation] = []
        for replica in replicas { observations.append(try await observe(replica.store, installationsOf: apps)) }
        for index in replicas.indices.dropFirst() where observations[index] != observations[0] {
            let lines = observations[0].differences(from: observations[index]).prefix(5).joined(separator: "\n")
            return mismatch("state differs, \(replicas[0].name) vs \(replicas[index].name):\n\(lines)")
        }
        return nil
    }

    func mismatch(_ description: String) -> String {
        "\(description)\nafter:\n\(log.suffix(25).joined(separator: "\n"))"
    }

    /// Removes the sequence's apps with everything they have, so the next sequence starts from an empty outbox.
    func deleteApps() async throws {
        for replica in replicas {
            for app in draw.apps { _ = try await replica.store.registry.deleteApp(id: app) }
            #expect(try await replica.store.delivery.outboxDepth() == 0)
        }
    }

    /// Draws the next operation; time-changing ones move `now` here, once for every replica.
    mutating func next() async throws -> CrossCheckOperation {
        let app = draw.pick(draw.apps)
        let installation = draw.pick(draw.installationIds)
        let revision: Int64? = draw.chance(25) ? Int64(draw.number(1...4)) : nil
        switch draw.number(0...99) {
        case 0..<5:
            return .putInstallation(app: app, draw.installation(), maxPerUser: draw.chance(20) ? 2 : nil, revision: revision)
        case 5..<12: return .putControls(app: app, installation: installation, draw.controls(), revision: revision)
        case 12..<16: return .putWidgets(app: app, installation: installation, draw.widgets())
        case 16..<19: return .putFileProvider(app: app, installation: installation, draw.fileProvider())
        case 19..<21: return .deleteFileProvider(app: app, installation: installation)
        case 21..<24:
            let enumerator = Enumerator(domain: draw.pick(["d1", "d2"]), container: draw.pick(["c1", "c2"]), expiresAt: now + Double(draw.number(10...300)))
            return .putEnumerator(app: app, installation: installation, enumerator, maxLive: draw.chance(30) ? 1 : nil)
        case 24..<25: return .deleteInstallation(app: app, installation: installation)
        case 25..<37: return createEvent(app: app)
        case 37..<57:
            let queued = try await memory.eventsToFanOut(limit: 10).map(\.id)
            guard !queued.isEmpty || (!events.isEmpty && draw.chance(10)) else { return createEvent(app: app) }
            let event = queued.isEmpty ? draw.pick(events) : draw.pick(queued)
            return .fanOut(event: event, batch: draw.number(1...4), handOff: draw.chance(50) ? 0 : draw.number(1...3))
        case 57..<67: return claim(pausing: draw.chance(20) ? [app] : [])
        case 67..<80 where !replicas[0].inFlight.isEmpty:
            let held = replicas[0].inFlight.keys.sorted().filter { _ in draw.chance(60) }
            var results: [(PushIdentity, DeliveryResult)] = []
            for (index, identity) in held.enumerated() { results.append((identity, draw.result(now: now, index: index))) }
            return .complete(results)
        case 67..<80: return claim(pausing: [])
        case 80..<83:
            // Past every lease, so PostgreSQL (leases) and memory and SQLite (one process) release the same claims.
            let advance = Double(draw.number(61...120))
            now += advance
            return .restart(advance: advance, lateAnswers: draw.chance(50))
        case 83..<90:
            let advance = Double(draw.number(1...90_000)) / 1000
            now += advance
            return .advance(advance)
        case 90..<93: return .setIntervals(app: app, [.controls: draw.pick([0, 20]), .widgets: draw.pick([0, 20])])
        case 93..<95: return .deleteExpiredEnumerators
        case 95..<97: return events.isEmpty ? .advance(0) : .failEvent(draw.pick(events))
        default: return .purge(olderThan: Double(draw.number(0...300)))
        }
    }

    /// A claim at a limit near a random one that the rule decides alone (`limit(near:)`).
    mutating func claim(pausing paused: Set<String>) -> CrossCheckOperation {
        let now = Int64((now.timeIntervalSince1970 * 1000).rounded())
        return .claim(limit: CrossCheckRun.limit(near: draw.number(1...4), memory.pendingPushes(), now: now, paused: paused), paused: paused)
    }

    mutating func createEvent(app: String) -> CrossCheckOperation {
        let id = "s\(seed)e\(events.count)"
        events.append(id)
        return .createEvent(EventRecord(id: id, appId: app, request: EventRequest(target: draw.target(), audience: draw.audience()), createdAt: now))
    }
}
