import Synchronization

/// Pushes the dispatcher sends without a task of their own (`Dispatcher.start`): how many are under way, and the
/// rest of those that need a task after all (a wait for a connection, a second request, a webhook to record).
/// At shutdown the dispatcher waits for them (`settle`) as it waited for their tasks.
final class TasklessSends: Sendable {
    typealias Work = @Sendable () async -> Void

    private struct State {
        var running = 0
        var unfinished: [Work] = []
        var waiter: CheckedContinuation<[Work], Never>?

        /// Whether a waiter of `settle` has something to return.
        var isSettled: Bool { !unfinished.isEmpty || running == 0 }
    }

    private let state = Mutex(State())

    /// Counts pushes about to be started.
    func started(_ count: Int) { state.withLock { $0.running += count } }

    /// One push finished (its result is buffered).
    func ended() { change { $0.running -= 1 } }

    /// One push needs a task for the rest of its work; `work` finishes it.
    func needsTask(_ work: @escaping Work) {
        change { state in
            state.running -= 1
            state.unfinished.append(work)
        }
    }

    /// The work that needs a task, taken.
    func takeUnfinished() -> [Work] {
        state.withLock { state in
            defer { state.unfinished = [] }
            return state.unfinished
        }
    }

    /// Waits, cancelled or not, until work needs a task (returned, taken) or no push is under way without one (`[]`).
    func settle() async -> [Work] {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [Work]? in
                guard state.isSettled else {
                    state.waiter = continuation
                    return nil
                }
                defer { state.unfinished = [] }
                return state.unfinished
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func change(_ update: (inout State) -> Void) {
        let (waiter, work) = state.withLock { state -> (CheckedContinuation<[Work], Never>?, [Work]) in
            update(&state)
            guard let waiter = state.waiter, state.isSettled else { return (nil, []) }
            state.waiter = nil
            defer { state.unfinished = [] }
            return (waiter, state.unfinished)
        }
        waiter?.resume(returning: work)
    }
}
