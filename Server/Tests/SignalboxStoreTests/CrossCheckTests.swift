import Foundation
import SignalboxMemoryStore
import SignalboxModel
import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// The tuned SQL checked against the Swift rules (issue 27): seeded random sequences of registrations, events,
/// fan-out steps, claims, completions, restarts and time passing, applied to the memory store and to each SQL
/// backend, must give the same answers and leave the same observable state after every step.
///
/// A mismatch names its seed: `SIGNALBOX_CROSSCHECK_SEED=<seed>` replays that sequence alone;
/// `SIGNALBOX_CROSSCHECK_SEQUENCES` and `SIGNALBOX_CROSSCHECK_OPERATIONS` run more and longer ones.
@Suite struct CrossCheckTests {
    @Test func randomSequencesGiveTheSameResultsOnMemoryAndSQL() async throws {
        let environment = ProcessInfo.processInfo.environment
        let sequences = environment["SIGNALBOX_CROSSCHECK_SEQUENCES"].flatMap(UInt64.init) ?? 20
        let seeds = environment["SIGNALBOX_CROSSCHECK_SEED"].flatMap(UInt64.init).map { [$0] } ?? Array(1...sequences)
        let operations = environment["SIGNALBOX_CROSSCHECK_OPERATIONS"].flatMap(Int.init) ?? 60
        try await withReplicas { replicas in
            for seed in seeds {
                var run = CrossCheckRun(seed: seed, replicas: replicas)
                if let mismatch = try await run.run(operations: operations) {
                    Issue.record("cross-check seed \(seed) (replay with SIGNALBOX_CROSSCHECK_SEED=\(seed)): \(mismatch)")
                    return
                }
                try await run.deleteApps()
            }
        }
    }

    /// Two processes on a fresh storage of each backend: memory (the reference, first), SQLite, and PostgreSQL
    /// where `Backend.available` has it.
    private func withReplicas(_ body: ([CrossCheckReplica]) async throws -> Void) async throws {
        try await StoreBackend.memory.withStores(2) { memory in
            try await Backend.sqlite.withStores(2) { sqlite in
                let replicas = [CrossCheckReplica(name: "memory", stores: memory), CrossCheckReplica(name: "sqlite", stores: sqlite.map(PortStores.init))]
                guard Backend.available.contains(.postgres) else { return try await body(replicas) }
                try await Backend.postgres.withStores(2) { postgres in
                    try await body(replicas + [CrossCheckReplica(name: "postgres", stores: postgres.map(PortStores.init))])
                }
            }
        }
    }
}

/// What a step leaves observable on a backend.
struct CrossCheckObservation: Equatable {
    var depth = 0
    var nextDue: Date?
    var queued: [String] = []
    var events: [String: EventStatus?] = [:]
    var installations: [String: InstallationSnapshot?] = [:]

    /// The lines that differ from `other`'s, described.
    func differences(from other: Self) -> [String] {
        var lines: [String] = []
        if depth != other.depth { lines.append("outbox depth \(depth) vs \(other.depth)") }
        if nextDue != other.nextDue { lines.append("next due \(String(describing: nextDue)) vs \(String(describing: other.nextDue))") }
        if queued != other.queued { lines.append("to fan out \(queued) vs \(other.queued)") }
        for (id, status) in events.sorted(by: { $0.key < $1.key }) where other.events[id] != status {
            lines.append("event \(id): \(String(describing: status)) vs \(String(describing: other.events[id] ?? nil))")
        }
        for (id, snapshot) in installations.sorted(by: { $0.key < $1.key }) where other.installations[id] != snapshot {
            lines.append("installation \(id): \(String(describing: snapshot)) vs \(String(describing: other.installations[id] ?? nil))")
        }
        return lines
    }
}
