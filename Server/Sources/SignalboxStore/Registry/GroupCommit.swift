import Synchronization

/// Gathers writes that arrive while earlier ones are being committed and commits them together: one
/// transaction and a few statements for the whole group, where each statement costs a thread hop on the
/// one connection. `commit` returns the errors of writes that fail alone (by index in the group); a group
/// whose commit throws is retried one write at a time, so a bad write fails alone.
final class GroupCommit<Item: Sendable>: Sendable {
    private struct Waiting {
        let item: Item
        let continuation: CheckedContinuation<Void, any Error>

        func resume(_ failure: (any Error)?) {
            if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
        }
    }

    private struct State {
        var queue: [Waiting] = []
        var draining = false
    }

    private let state = Mutex(State())
    private let maxGroup: Int

    init(maxGroup: Int = 500) {
        self.maxGroup = maxGroup
    }

    /// Commits a group; returns the errors of the writes that failed alone, by index.
    typealias Commit = @Sendable ([Item]) async throws -> [Int: any Error]

    /// Returns once `item` is committed (or throws its error). Every caller passes the same `commit`.
    func submit(_ item: Item, commit: @escaping Commit) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let leads = state.withLock { state in
                state.queue.append(Waiting(item: item, continuation: continuation))
                defer { state.draining = true }
                return !state.draining
            }
            if leads { Task { await self.drain(commit) } }
        }
    }

    /// Commits queued groups until the queue is empty.
    private func drain(_ commit: Commit) async {
        while true {
            let group: [Waiting] = state.withLock { state in
                let group = Array(state.queue.prefix(maxGroup))
                state.queue.removeFirst(group.count)
                if group.isEmpty { state.draining = false }
                return group
            }
            guard !group.isEmpty else { return }
            do {
                let failures = try await commit(group.map(\.item))
                for (index, waiting) in group.enumerated() { waiting.resume(failures[index]) }
            } catch where group.count > 1 {
                for waiting in group {
                    do {
                        waiting.resume(try await commit([waiting.item])[0])
                    } catch {
                        waiting.continuation.resume(throwing: error)
                    }
                }
            } catch {
                group[0].continuation.resume(throwing: error)
            }
        }
    }
}
