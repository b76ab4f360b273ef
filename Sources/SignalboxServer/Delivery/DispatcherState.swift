import SignalboxModel
import Synchronization

/// Pushes being sent, and results waiting to be recorded.
final class ResultBuffer: Sendable {
    private let state = Mutex<(inFlight: Int, results: [PushCompletion])>((0, []))

    var inFlight: Int { state.withLock { $0.inFlight } }

    func started(_ count: Int) { state.withLock { $0.inFlight += count } }

    /// Counts up to `count` pushes in flight without passing `limit`. - Returns: how many were counted.
    func reserve(upTo count: Int, limit: Int) -> Int {
        state.withLock { state in
            let granted = max(0, min(count, limit - state.inFlight))
            state.inFlight += granted
            return granted
        }
    }

    /// Gives back slots reserved but not used.
    func release(_ count: Int) { state.withLock { $0.inFlight -= count } }

    /// - Returns: how many pushes are still being sent.
    func finished(_ completion: PushCompletion) -> Int {
        state.withLock { state in
            state.inFlight -= 1
            state.results.append(completion)
            return state.inFlight
        }
    }

    func take() -> [PushCompletion] {
        state.withLock { state in
            defer { state.results = [] }
            return state.results
        }
    }
}

/// Pushes stored already claimed by the fan-out (`FanOutStep.handedOff`), counted in flight, not yet sent.
final class HandedOffPushes: Sendable {
    private let pushes = Mutex<[OutboxPush]>([])

    func add(_ handed: [OutboxPush]) { pushes.withLock { $0.append(contentsOf: handed) } }

    func take() -> [OutboxPush] {
        pushes.withLock { pushes in
            defer { pushes = [] }
            return pushes
        }
    }
}

/// The last 50 answers per app, to tell a misconfigured app (nearly all tokens refused) from dead tokens.
final class RecentAnswers: Sendable {
    private let windows = Mutex<[String: [Bool]]>([:])

    /// Adds an answer. - Returns: whether the app's window (at least 10 answers) is 90 % or more suspect.
    @discardableResult
    func record(app: String, suspect: Bool) -> Bool {
        windows.withLock { windows in
            var window = windows[app, default: []]
            window.append(suspect)
            if window.count > 50 { window.removeFirst(window.count - 50) }
            windows[app] = window
            return window.count >= 10 && Double(window.filter { $0 }.count) >= 0.9 * Double(window.count)
        }
    }
}
