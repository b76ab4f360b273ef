import Foundation
import NIOCore
import SignalboxAPNs
import Synchronization

/// The simulator's shared state: known keys and tokens, faults to inject, what was accepted.
final class Ledger: Sendable {
    private struct State {
        var validator = PushValidator(keys: [:], bindings: [:], unregistered: [:])
        var accepted: [AcceptedPush] = []
        var acceptedCount = 0
        var stats = SimulatorStats()
        var script: [APNsSimulator.Fault] = []
        var scriptIndex = 0
        var generator: SeededGenerator
        var nextConnectionId = 1
    }

    private let state: Mutex<State>
    private let connections = Mutex<[Int: any Channel]>([:])
    private let recordLimit: Int
    private let rates: [(fault: APNsSimulator.Fault, probability: Double)]

    init(configuration: APNsSimulator.Configuration) {
        recordLimit = max(1, configuration.recordLimit)
        rates = configuration.faults.rates
        var initial = State(generator: SeededGenerator(seed: configuration.faults.seed))
        initial.validator.environment = configuration.environment
        state = Mutex(initial)
    }

    var validator: PushValidator { state.withLock { $0.validator } }

    func register(_ key: RegisteredKey, keyId: String) { state.withLock { $0.validator.keys[keyId] = key } }

    func bind(token: String, topic: String) { state.withLock { $0.validator.bindings[token] = topic } }

    func markUnregistered(token: String, at date: Date) {
        state.withLock { $0.validator.unregistered[token] = date }
    }

    func script(_ faults: [APNsSimulator.Fault]) {
        state.withLock {
            $0.script = faults
            $0.scriptIndex = 0
        }
    }

    /// The fault for the next request: the script first, then the random rates.
    func nextFault() -> APNsSimulator.Fault? {
        state.withLock { state in
            if state.scriptIndex < state.script.count {
                defer { state.scriptIndex += 1 }
                return state.script[state.scriptIndex]
            }
            for (fault, probability) in rates where Double.random(in: 0..<1, using: &state.generator) < probability {
                return fault
            }
            return nil
        }
    }

    /// Counts a new connection and returns its id.
    func connectionOpened(_ channel: any Channel) -> Int {
        let id = state.withLock { state in
            state.stats.connectionsAccepted += 1
            defer { state.nextConnectionId += 1 }
            return state.nextConnectionId
        }
        connections.withLock { $0[id] = channel }
        return id
    }

    func connectionClosed(_ id: Int) { _ = connections.withLock { $0.removeValue(forKey: id) } }

    var openConnections: [any Channel] { connections.withLock { Array($0.values) } }

    func observe(concurrentStreams: Int) {
        state.withLock { $0.stats.maxConcurrentStreamsObserved = max($0.stats.maxConcurrentStreamsObserved, concurrentStreams) }
    }

    func goAwaySent() { state.withLock { $0.stats.goAwaysSent += 1 } }

    /// Records the answer given to one request.
    func record(_ verdict: Verdict) {
        state.withLock { state in
            state.stats.requests += 1
            switch verdict {
            case .accepted(let push):
                state.acceptedCount += 1
                if state.accepted.count >= recordLimit { state.accepted.removeFirst(max(1, recordLimit / 10)) }
                var push = push
                push.sequence = state.acceptedCount
                state.accepted.append(push)
            case .rejected(_, let reason, _):
                state.stats.rejected[reason.rawValue, default: 0] += 1
            }
        }
    }

    var accepted: [AcceptedPush] { state.withLock { $0.accepted } }
    var acceptedCount: Int { state.withLock { $0.acceptedCount } }
    var stats: SimulatorStats { state.withLock { $0.stats } }

    /// Forgets accepted pushes, statistics and the script; keys and tokens stay.
    func reset() {
        state.withLock { state in
            state.accepted = []
            state.acceptedCount = 0
            state.stats = SimulatorStats()
            state.script = []
            state.scriptIndex = 0
        }
    }
}
