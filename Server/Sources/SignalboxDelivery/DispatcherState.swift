import SignalboxModel
import Synchronization

/// Pushes in flight (claimed or handed off, until answered), in all and per app; of those, the ones being sent; and
/// results waiting to be recorded.
final class ResultBuffer: Sendable {
    private struct State {
        var inFlight = 0
        var inFlightByApp: [String: Int] = [:]
        var sending = 0
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

    /// Pushes started and not answered yet.
    var sending: Int { state.withLock { $0.sending } }

    /// Pushes in flight per app (apps with none are absent).
    var inFlightByApp: [String: Int] { state.withLock { $0.inFlightByApp } }

    /// Counts claimed pushes in flight and being sent.
    func started(_ pushes: [OutboxPush]) {
        state.withLock { state in
            for push in pushes { state.add(1, app: push.appId) }
            state.sending += pushes.count
        }
    }

    /// Counts handed-off pushes (in flight since their reservation) as being sent.
    func sendingHandedOff(_ count: Int) { state.withLock { $0.sending += count } }

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

    /// - Returns: how many pushes are still in flight, and how many of them being sent.
    func finished(_ completion: PushCompletion) -> (inFlight: Int, sending: Int) {
        state.withLock { state in
            state.add(-1, app: completion.push.appId)
            state.sending -= 1
            state.results.append(completion)
            return (state.inFlight, state.sending)
        }
    }

    func take() -> [PushCompletion] {
        state.withLock { state in
            defer { state.results = [] }
            return state.results
        }
    }
}

/// Pushes stored already claimed by the fan-out (`FanOutStep.handedOff`), counted in flight, not yet sent: those
/// beyond `maxInFlight` (up to `handOffAhead`) wait here for the connections.
final class HandedOffPushes: Sendable {
    /// Per app, in the order handed off; apps in the order they first handed off.
    private let queues = Mutex<[(app: String, pushes: ArraySlice<OutboxPush>)]>([])

    func add(_ handed: [OutboxPush]) {
        guard !handed.isEmpty else { return }
        queues.withLock { queues in
            for (app, pushes) in Dictionary(grouping: handed, by: \.appId) {
                if let index = queues.firstIndex(where: { $0.app == app }) {
                    queues[index].pushes.append(contentsOf: pushes)
                } else {
                    queues.append((app, pushes[...]))
                }
            }
        }
    }

    /// Up to `count` pushes, the apps taking turns: a quiet app's push waiting here goes before a loud app's page.
    func take(upTo count: Int) -> [OutboxPush] {
        queues.withLock { queues in
            var taken: [OutboxPush] = []
            while taken.count < count, !queues.isEmpty {
                let share = max(1, (count - taken.count) / queues.count)
                for index in queues.indices where taken.count < count {
                    let part = queues[index].pushes.prefix(min(share, count - taken.count))
                    taken.append(contentsOf: part)
                    queues[index].pushes.removeFirst(part.count)
                }
                queues.removeAll { $0.pushes.isEmpty }
            }
            return taken
        }
    }
}

/// The last 50 answers per app, to tell a misconfigured app (nearly all tokens refused) from dead tokens.
final class RecentAnswers: Sendable {
    /// An app's last answers about its tokens in a ring, with how many of them are suspect.
    private struct Window {
        static let size = 50
        private var suspect = [Bool](repeating: false, count: size)
        private var count = 0, next = 0, suspects = 0

        /// Adds an answer. - Returns: whether the window (at least 10 answers) is 90 % or more suspect.
        mutating func record(suspect answer: Bool) -> Bool {
            if count == Self.size { suspects -= suspect[next] ? 1 : 0 } else { count += 1 }
            suspect[next] = answer
            suspects += answer ? 1 : 0
            next = (next + 1) % Self.size
            return count >= 10 && Double(suspects) >= 0.9 * Double(count)
        }
    }

    private let windows = Mutex<[String: Window]>([:])

    /// When nearly every recent answer for an app is `BadDeviceToken` / `DeviceTokenNotForTopic`, the app's
    /// environment or topic is wrong, not its tokens: those pushes fail without a strike toward pruning. Retries and
    /// postponements are no answer about a token (a timeout, a 5xx, a paused app) and leave the window as it is.
    /// - Returns: the completions, spared suspects turned into failures; and each spared app with a reason.
    func sparing(_ completions: [PushCompletion]) -> (completions: [PushCompletion], apps: [String: String]) {
        var apps: [String: String] = [:]
        var spared = completions
        windows.withLock { windows in
            for index in completions.indices {
                let app = completions[index].push.appId
                switch completions[index].result {
                case .retry, .postpone:
                    continue
                case .suspect(let reason):
                    guard windows[app, default: Window()].record(suspect: true) else { continue }
                    apps[app] = reason
                    spared[index].result = .failed(reason: reason)
                case .delivered, .failed, .prune:
                    _ = windows[app, default: Window()].record(suspect: false)
                }
            }
        }
        return (spared, apps)
    }
}
