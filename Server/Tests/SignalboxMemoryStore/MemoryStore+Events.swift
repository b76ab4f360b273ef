import Foundation
import SignalboxAPI
import SignalboxModel

/// Events, minimum intervals, and the fan-out's pages: read for the engine to plan, then written with the pushes it planned.
extension MemoryStore: DeliveryStore {
    public func pushIntervals(appId: String) async throws -> [PushKind: Int] {
        withState { $0.intervals[appId] ?? [:] }
    }

    public func setPushIntervals(appId: String, _ intervals: [PushKind: Int]) async throws {
        try withState { state in
            guard state.apps[appId] != nil else { throw StoreError(.notFound, "no app \(appId)") }
            state.intervals[appId] = intervals.filter { $0.value > 0 }
        }
    }

    public func createEvent(_ event: EventRecord) async throws {
        try withState { state in
            guard state.events[event.id] == nil else { throw StoreError(.conflict, "event \(event.id) exists") }
            var record = event
            record.createdAt = event.createdAt.stored
            state.events[event.id] = StoredEvent(record: record, state: .accepted)
        }
    }

    public func eventStatus(appId: String, id: String) async throws -> EventStatus? {
        withState { state in state.events[id].flatMap { $0.record.appId == appId ? $0.status : nil } }
    }

    public func eventsToFanOut(limit: Int) async throws -> [QueuedEvent] {
        withState { state in
            let queued = state.events.values.filter(\.plannable).map(\.record)
            let oldestPerApp = Dictionary(grouping: queued, by: \.appId).values.compactMap { events in
                events.min { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
            }
            return oldestPerApp.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.prefix(max(0, limit)).map {
                QueuedEvent(id: $0.id, appId: $0.appId, createdAt: $0.createdAt)
            }
        }
    }

    public func failEvent(id: String, reason: String, now: Date) async throws {
        withState { state in
            guard state.events[id]?.plannable == true else { return }
            state.events[id]!.state = .failed
            state.events[id]!.reason = reason
        }
    }

    public func purgeEvents(createdBefore cutoff: Date, limit: Int) async throws -> Int {
        withState { state in
            let old = state.events.values.filter { event in
                event.record.createdAt < cutoff && [.failed, .done].contains(event.status.state)
            }
            let purged = old.sorted { ($0.record.createdAt, $0.record.id) < ($1.record.createdAt, $1.record.id) }.prefix(max(0, limit))
            for event in purged { state.events[event.record.id] = nil }
            return purged.count
        }
    }

    public func fanOutPage(
        eventId: String, batchSize: Int, fullPage: Int, now: Date, urgent: Bool, _ step: @escaping @Sendable (FanOutPage) async throws -> FanOutStep
    ) async throws -> FanOutStep {
        let read = withState { state -> (event: EventRecord, cursor: String, page: [FanOutCandidate], last: String?, finished: Bool)? in
            guard let event = state.events[eventId], event.plannable else { return nil }
            let record = event.record
            let audience = state.installations(of: record.appId).filter { $0.id > event.cursor && $0.installation.isIn(record.request) }
            let page = audience.prefix(max(0, batchSize))
            let candidates = page.flatMap { $0.installation.candidates(for: record.request.target, id: $0.id, now: now.milliseconds) }
            // As the SQL's page query: the audience ends with a page shorter than asked for.
            return (record, event.cursor, candidates, page.last?.id, audience.count < batchSize)
        }
        guard let read else { return FanOutStep(planned: 0, coalesced: 0, finished: true) }
        let page = FanOutPage(event: read.event, candidates: read.page) { pushes, handOff in
            self.store(pushes, event: read.event, from: read.cursor, to: read.last ?? read.cursor, finished: read.finished, now: now, handOff: handOff)
        }
        return try await step(page)
    }

    /// Stores a page's pushes and moves the event's cursor from `from` to `to`; a page another step stored
    /// meanwhile (the cursor moved) is dropped as `busy`, where the SQL backends' locks keep a second step out.
    private func store(
        _ pushes: [PlannedPush], event record: EventRecord, from: String, to: String, finished: Bool, now: Date, handOff: Int
    ) -> FanOutStep {
        let claim = (owner: owner, leaseUntil: (now + claimLease.seconds).milliseconds)
        return withState { state in
            guard let event = state.events[record.id], event.plannable else { return FanOutStep(planned: 0, coalesced: 0, finished: true) }
            guard event.cursor == from else { return FanOutStep(planned: 0, coalesced: 0, finished: false, busy: true) }
            let interval = pushes.first.flatMap { state.intervals[record.appId]?[$0.kind] } ?? 0
            let sent = state.lastSent
            let due = { (push: PlannedPush) in
                let lastSent = sent[LastSentKey(appId: record.appId, token: push.token, kind: push.kind)]
                return MinimumInterval.due(planned: record.createdAt.milliseconds, lastSent: lastSent, seconds: interval)
            }
            // Up to `handOff` of the pushes due now are sent at once, unless a pending twin absorbs them.
            let handing = Set(pushes.filter { due($0) <= now.milliseconds }.prefix(max(0, handOff)).map {
                Coalescing.Key(appId: record.appId, token: $0.token, payload: $0.payload)
            }).filter { state.pending[$0] == nil }
            var coalesced = 0
            var handedOff: [OutboxPush] = []
            for planned in pushes {
                let key = Coalescing.Key(appId: record.appId, token: planned.token, payload: planned.payload)
                var push = StoredPush(
                    id: state.nextPushId(), appId: record.appId, installationId: planned.installationId, token: planned.token,
                    kind: planned.kind, environment: planned.environment, payload: planned.payload, due: due(planned),
                    eventCreatedAt: record.createdAt.milliseconds, carried: Coalescing.Carried(event: record.id)
                )
                if handing.contains(key) {
                    push.claim = claim
                    state.outbox[push.id] = push
                    handedOff.append(push.outboxPush)
                    continue
                }
                switch Coalescing.place(pendingTwin: state.pending[key]) {
                case .pending: state.insertPending(push)
                case .absorbed(let twin):
                    state.outbox[twin]!.carried.absorb(planned: record.id)
                    coalesced += 1
                }
            }
            state.events[record.id]!.state = finished ? .delivering : .fanningOut
            state.events[record.id]!.cursor = to
            state.events[record.id]!.matched += pushes.count
            state.events[record.id]!.coalesced += coalesced
            return FanOutStep(planned: pushes.count, coalesced: coalesced, finished: finished, handedOff: handedOff)
        }
    }
}

extension MemoryState {
    /// Stores a push pending; its key has no pending push yet.
    mutating func insertPending(_ push: StoredPush) {
        var push = push
        push.claim = nil
        outbox[push.id] = push
        pending[push.key] = push.id
    }
}

extension StoredInstallation {
    /// Whether the event's audience takes this installation and it registered something the target can match.
    func isIn(_ request: EventRequest) -> Bool {
        switch request.audience {
        case .all: break
        case .users(let users): guard let user = installation.userId, users.contains(user) else { return false }
        case .installations(let ids): guard ids.contains(installation.id) else { return false }
        case .channels(let channels): guard installation.channels.contains(where: channels.contains) else { return false }
        }
        switch request.target {
        case .widgets(let kinds, _): return widgets?.widgets.contains { kinds.isEmpty || kinds.contains($0.kind) } == true
        case .controls(let kinds, _): return controls.contains { kinds.isEmpty || kinds.contains($0.kind) }
        case .fileProvider(let domain, _): return fileProvider?.domains.contains { $0.id == domain } == true
        }
    }

    /// This installation's registrations as planner input, as the SQL backends select them: one candidate per
    /// control, one for the widgets, one for the File Provider domain. Configurations only where the event filters.
    func candidates(for target: EventTarget, id: String, now: Int64) -> [FanOutCandidate] {
        switch target {
        case .controls(let kinds, let filter):
            return controls.filter { kinds.isEmpty || kinds.contains($0.kind) }.map {
                FanOutCandidate(installationId: id, environment: installation.environment, token: $0.pushToken,
                                entries: [($0.kind, filter == nil ? .object([:]) : $0.configuration)])
            }
        case .widgets(let kinds, let filter):
            guard let widgets else { return [] }
            let entries = widgets.widgets.filter { kinds.isEmpty || kinds.contains($0.kind) }.map {
                (kind: $0.kind, configuration: filter == nil ? JSONValue.object([:]) : $0.configuration)
            }
            guard !entries.isEmpty else { return [] }
            return [FanOutCandidate(installationId: id, environment: installation.environment, token: widgets.pushToken, entries: entries)]
        case .fileProvider(let domain, let container):
            guard let fileProvider, let registered = fileProvider.domains.first(where: { $0.id == domain }) else { return [] }
            let live = (enumerators[EnumeratorKey(domain: domain, container: container)] ?? .min) > now
            return [FanOutCandidate(installationId: id, environment: installation.environment, token: fileProvider.pushToken,
                                    domain: registered, liveContainers: live ? [container] : [])]
        }
    }
}
