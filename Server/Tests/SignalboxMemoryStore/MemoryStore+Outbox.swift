import Foundation
import SignalboxModel

/// The outbox: claims in turns (`ClaimOrder`), results by `PushLife`, coalescing on the way back to pending
/// (`Coalescing`), tokens pruned by `TokenPruning`.
extension MemoryStore {
    /// Returns every claim of an earlier process to pending (this memory belongs to one process at a time, as a
    /// SQLite file does), oldest push first, due at once.
    @discardableResult
    public func releaseClaims(now: Date) async throws -> Int {
        withState { state in
            let stale = state.outbox.values.filter { $0.claim.map { $0.owner != owner } ?? false }.map(\.id).sorted()
            for id in stale { state.returnToPending(id, at: 0, usedAttempt: false) }
            return stale.count
        }
    }

    public func claimDuePushes(now: Date, limit: Int, pausedApps: Set<String>) async throws -> [OutboxPush] {
        let claim = (owner: owner, leaseUntil: (now + claimLease.seconds).milliseconds)
        return withState { state in
            let candidates = state.pending.values.map { id in
                let push = state.outbox[id]!
                return ClaimOrder.Candidate(id: id, appId: push.appId, due: push.due)
            }
            return ClaimOrder.claim(candidates, now: now.milliseconds, limit: limit, pausedApps: pausedApps).map { candidate in
                state.pending[state.outbox[candidate.id]!.key] = nil
                state.outbox[candidate.id]!.claim = claim
                return state.outbox[candidate.id]!.outboxPush
            }
        }
    }

    /// Records results of pushes this process still holds, in push id order (as the SQL backends apply them): first
    /// the ones that return to pending, then those that leave, each checking its token in turn.
    public func complete(_ completions: [PushCompletion], now: Date) async throws -> CompletionSummary {
        withState { state in
            var summary = CompletionSummary()
            var held = 0
            var leaving: [(push: StoredPush, check: PushLife.TokenCheck)] = []
            for completion in completions.sorted(by: { $0.push.id < $1.push.id }) {
                guard let push = state.outbox[completion.push.id], push.claim?.owner == owner else { continue }
                held += 1
                switch PushLife.step(for: completion.result) {
                case .backToPending(let at, let usesAttempt, _):
                    state.returnToPending(push.id, at: at.milliseconds, usedAttempt: usesAttempt)
                case .leaves(let check):
                    state.outbox[push.id] = nil
                    leaving.append((push, check))
                }
            }
            summary.claimsLost = completions.count - held
            for (push, check) in leaving {
                let removed: Bool
                switch check {
                case .none: removed = false
                case .removeUnlessRenewed(let since, _):
                    let renewed = since.map { state.holds(appId: push.appId, token: push.token, seenSince: $0.milliseconds) } ?? false
                    removed = TokenPruning.removesUnregistered(since: since, renewedSince: renewed) && state.removeToken(appId: push.appId, push.token)
                case .strike:
                    let key = TokenKey(appId: push.appId, token: push.token)
                    state.strikes[key, default: 0] += 1
                    if TokenPruning.removes(afterStrikes: state.strikes[key]!) {
                        state.strikes[key] = nil
                        removed = state.removeToken(appId: push.appId, push.token)
                    } else {
                        removed = false
                    }
                }
                summary.tokensPruned += removed ? 1 : 0
                guard let counter = PushLife.outcome(of: check, tokenRemoved: removed).counter else { continue }
                for (event, count) in push.carried.credits where state.events[event] != nil {
                    state.events[event]!.add(count, to: counter)
                }
                guard counter == .delivered else { continue }
                state.strikes[TokenKey(appId: push.appId, token: push.token)] = nil
                if (state.intervals[push.appId]?[push.kind] ?? 0) > 0 {
                    state.lastSent[LastSentKey(appId: push.appId, token: push.token, kind: push.kind)] = now.milliseconds
                }
            }
            return summary
        }
    }

    public func nextDueDate(pausedApps: Set<String>) async throws -> Date? {
        withState { state in
            state.pending.values.compactMap { state.outbox[$0] }.filter { !pausedApps.contains($0.appId) }.map(\.due).min()
                .map(Date.init(milliseconds:))
        }
    }

    public func outboxDepth() async throws -> Int {
        withState { $0.outbox.count }
    }

    /// One process owns the memory: its own clock is the only one.
    public func sharedTime() async throws -> Date? { nil }

    /// Memory has no query planner.
    public func refreshPlanningStatistics() async throws {}
}

extension MemoryStore: ChangeNotifier {
    /// No other instance shares this memory: returns at once.
    public func listenForChanges(_ body: @escaping @Sendable (StorageChange) -> Void) async throws {}
}

extension MemoryState {
    /// Makes a claimed push pending again from `at`, unless a pending twin absorbs it with its events (`Coalescing`).
    mutating func returnToPending(_ id: String, at: Int64, usedAttempt: Bool) {
        guard var push = outbox[id] else { return }
        switch Coalescing.place(pendingTwin: pending[push.key]) {
        case .absorbed(let twin):
            outbox[id] = nil
            outbox[twin]!.carried.absorb(returning: push.carried)
        case .pending:
            push.due = at
            push.attempts += usedAttempt ? 1 : 0
            insertPending(push)
        }
    }

    /// Whether a registration of the app holds the token (renewed at or after `since`, when given).
    func holds(appId: String, token: String, seenSince since: Int64? = nil) -> Bool {
        installations.contains { $0.key.appId == appId && $0.value.holds(token, seenSince: since) }
    }

    /// Removes the token from every registration of the app. - Returns: whether any held it.
    mutating func removeToken(appId: String, _ token: String) -> Bool {
        let held = holds(appId: appId, token: token)
        for key in installations.keys where key.appId == appId { installations[key]!.remove(token) }
        return held
    }
}

extension MemoryStore {
    /// The pending pushes as `ClaimOrder` sees them: for tests that need to know which claims the rule leaves open.
    public func pendingPushes() -> [ClaimOrder.Candidate] {
        withState { state in
            state.pending.values.compactMap { state.outbox[$0] }.map { ClaimOrder.Candidate(id: $0.id, appId: $0.appId, due: $0.due) }
        }
    }
}
