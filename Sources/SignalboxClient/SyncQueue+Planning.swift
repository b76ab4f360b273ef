import Foundation

/// Which key goes next and what an answer does to the state; pure functions over `SyncState`.
extension SyncQueue {
    struct Pick: Sendable {
        var key: String
        var snapshot: RegistrationSnapshot
        var revision: Int64
    }

    /// Whether the entry should be sent now: new, or due for its daily refresh.
    static func isDue(_ entry: SyncEntry, now: Date, configuration: Configuration) -> Bool {
        guard entry.refusedRevision != entry.revision else { return false }
        guard entry.isAcknowledged else { return true }
        guard !entry.snapshot.isEnumerator, let at = entry.acknowledgedAt else { return false }
        return now >= at.addingTimeInterval(configuration.refreshInterval)
    }

    /// The next key to send, marked as being sent by this process; `nil` when nothing may be sent now.
    static func pick(_ state: inout SyncState, now: Date, configuration: Configuration, round: Round) -> Pick? {
        if let retryAt = state.retryAt, retryAt > now { return nil }
        // A lease not sent within its own length has lapsed: sending it late would revive a dead enumerator.
        for (key, entry) in state.entries {
            if case .enumeratorLease(_, _, let seconds, let requestedAt) = entry.snapshot, !entry.isAcknowledged,
                now >= requestedAt.addingTimeInterval(TimeInterval(seconds)) {
                state.entries[key] = nil
            }
        }
        let ordered = state.entries.values.sorted { ($0.snapshot.order, $0.snapshot.key) < ($1.snapshot.order, $1.snapshot.key) }
        for entry in ordered where isDue(entry, now: now, configuration: configuration) {
            let key = entry.snapshot.key
            if let until = entry.sendingUntil, until > now {
                // Another process is on it; nothing after the installation goes before the installation.
                if entry.snapshot.order == 0 { return nil }
                continue
            }
            if entry.snapshot.order > 0, state.entries["installation"]?.isAcknowledged != true { return nil }
            if entry.snapshot.isEnumerator, let fileProvider = state.entries["file-provider"], !fileProvider.isAcknowledged { return nil }
            state.entries[key]?.sendingUntil = now.addingTimeInterval(configuration.sendingTimeout)
            return Pick(key: key, snapshot: entry.snapshot, revision: entry.revision)
        }
        return nil
    }

    /// Records the answer; returns whether the round stops (a failure that may pass).
    static func apply(
        _ outcome: SendOutcome, to state: inout SyncState, pick: Pick, now: Date, configuration: Configuration,
        round: inout Round, report: inout SyncReport
    ) -> Bool {
        state.entries[pick.key]?.sendingUntil = nil
        let current = state.entries[pick.key]?.revision == pick.revision
        func fail(_ status: Int?, _ code: String, _ message: String) {
            let error = SyncError(key: pick.key, status: status, code: code, message: message, at: now)
            state.lastError = error
            report.errors.append(error)
        }
        switch outcome {
        case .acknowledged:
            state.failures = 0
            state.retryAt = nil
            if state.lastError?.key == pick.key { state.lastError = nil }
            report.acknowledged.append(pick.key)
            guard current else { return false }
            if pick.snapshot.isRemoval {
                state.entries[pick.key] = nil
            } else {
                state.entries[pick.key]?.acknowledgedRevision = pick.revision
                state.entries[pick.key]?.acknowledgedAt = now
            }
            return false
        case .superseded(let serverRevision):
            // The server holds a newer revision than ours, so our counter fell behind (a restored store):
            // the snapshot is what the app wants now, so it goes again under a revision above the server's.
            guard current else { return false }
            state.nextRevision = max(state.nextRevision, serverRevision + 1)
            state.entries[pick.key]?.revision = state.nextRevision
            state.nextRevision += 1
            return false
        case .notFound(let message):
            // The server forgot the installation (deleted, or a new server): register it again, then this.
            guard pick.snapshot.order > 0, !round.reinstalled.contains(pick.key) else {
                if current { state.entries[pick.key]?.refusedRevision = pick.revision }
                fail(404, "not_found", message)
                return false
            }
            round.reinstalled.insert(pick.key)
            state.entries["installation"]?.acknowledgedRevision = nil
            if pick.snapshot.isEnumerator { state.entries["file-provider"]?.acknowledgedRevision = nil }
            return false
        case .ownedByAnotherUser(let message):
            // Once per round: a second refusal under a fresh id is not about the id.
            guard !round.movedInstallation else {
                if current { state.entries[pick.key]?.refusedRevision = pick.revision }
                fail(403, anotherUserCode, message)
                return false
            }
            round.movedInstallation = true
            state.moveToNewInstallation(configuration.makeInstallationId(), keepingInstallation: true)
            return false
        case .unauthorized(let message):
            guard round.refreshedCredentials else {
                round.refreshedCredentials = true
                return false
            }
            fail(401, "unauthorized", message)
            return backOff(&state, retryAfter: nil, now: now, configuration: configuration)
        case .refused(let status, let code, let message):
            if current { state.entries[pick.key]?.refusedRevision = pick.revision }
            fail(status, code, message)
            return false
        case .retryLater(let status, let code, let message, let retryAfter):
            fail(status, code, message)
            return backOff(&state, retryAfter: retryAfter, now: now, configuration: configuration)
        }
    }

    private static func backOff(_ state: inout SyncState, retryAfter: TimeInterval?, now: Date, configuration: Configuration) -> Bool {
        state.failures += 1
        state.retryAt = now.addingTimeInterval(configuration.backoff.delay(failures: state.failures, retryAfter: retryAfter))
        return true
    }

    /// The earliest time something becomes due: the retry, another process's lapsed send, or a refresh.
    static func nextWake(_ state: SyncState, now: Date, configuration: Configuration) -> Date? {
        var times: [Date] = []
        if let retryAt = state.retryAt, retryAt > now { times.append(retryAt) }
        // Without an installation to send (none set, or refused), the other keys wait: nothing to wake for.
        let blocked = state.entries["installation"].map { !$0.isAcknowledged && $0.refusedRevision == $0.revision } ?? true
        for entry in state.entries.values where entry.refusedRevision != entry.revision {
            if !entry.isAcknowledged {
                guard entry.snapshot.order == 0 || !blocked else { continue }
                times.append(max(entry.sendingUntil ?? now, state.retryAt ?? now))
            } else if !entry.snapshot.isEnumerator, let at = entry.acknowledgedAt {
                times.append(at.addingTimeInterval(configuration.refreshInterval))
            }
        }
        return times.min()
    }
}
