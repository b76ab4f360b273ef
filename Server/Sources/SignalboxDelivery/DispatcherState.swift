import SignalboxModel
import Synchronization

/// Pushes being sent, in all and per app, and results waiting to be recorded.
final class ResultBuffer: Sendable {
    private struct State {
        var inFlight = 0
        var inFlightByApp: [String: Int] = [:]
        var results: [PushCompletion] = []

        mutating func add(_ count: Int, app: String) {
            inFlight += count
            let now = inFlightByApp[app, default: 0] + count
            inFlightByApp[app] = now > 0 ? now : nil
        }

        func room(app: String, limit: Int, appLimit: Int) -> Int {
            min(limit - inFlight, appLimit - inFlightByApp[app, default: 0])
        }
    }

    private let state = Mutex(State())

    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Pushes in flight per app (apps with none are absent).
    var inFlightByApp: [String: Int] { state.withLock { $0.inFlightByApp } }

    /// Counts claimed pushes in flight.
    func started(_ pushes: [OutboxPush]) {
        state.withLock { state in
            for push in pushes { state.add(1, app: push.appId) }
        }
    }

    /// Counts up to `count` pushes of `app` in flight without passing `limit` in all nor `appLimit` for the app.
    /// - Returns: how many were counted.
    func reserve(upTo count: Int, app: String, limit: Int, appLimit: Int) -> Int {
        state.withLock { state in
            let granted = max(0, min(count, state.room(app: app, limit: limit, appLimit: appLimit)))
            state.add(granted, app: app)
            return granted
        }
    }

    /// How many pushes of `app` could be counted now within `limit` in all and `appLimit` for the app.
    func room(app: String, limit: Int, appLimit: Int) -> Int {
        state.withLock { $0.room(app: app, limit: limit, appLimit: appLimit) }
    }

    /// Gives back slots reserved for `app` but not used.
    func release(_ count: Int, app: String) { state.withLock { $0.add(-count, app: app) } }

    /// - Returns: how many pushes are still being sent.
    func finished(_ completion: PushCompletion) -> Int {
        state.withLock { state in
            state.add(-1, app: completion.push.appId)
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
