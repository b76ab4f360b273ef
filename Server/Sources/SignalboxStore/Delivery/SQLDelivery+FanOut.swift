import Foundation
import SQLKit
import SignalboxAPI
import SignalboxModel

/// The fan-out's storage: reads one page of installations for the engine to plan, and stores the page's pushes in
/// the same transaction.
extension SQLDelivery {
    public func fanOutPage(
        eventId: String, batchSize: Int, fullPage: Int, now: Date, urgent: Bool, _ step: @escaping @Sendable (FanOutPage) async throws -> FanOutStep
    ) async throws -> FanOutStep {
        let claim = Claim(owner: database.owner, leaseUntil: (now + database.claimLease.seconds).milliseconds)
        let backend = backend
        do {
            return try await transaction(urgent: urgent) { db in
                try await Self.page(db, backend, eventId: eventId, batchSize: batchSize, fullPage: fullPage, now: now, claim: claim, step)
            }
        } catch is EventMovedMeanwhile {
            return FanOutStep(planned: 0, coalesced: 0, finished: false, busy: true)
        }
    }

    /// `fanOutPage` inside its transaction.
    private static func page(
        _ db: any SQLDatabase, _ backend: SQLBackend, eventId: String, batchSize: Int, fullPage: Int, now: Date, claim: Claim,
        _ step: @escaping @Sendable (FanOutPage) async throws -> FanOutStep
    ) async throws -> FanOutStep {
        guard var row = try await Self.plannableEvent(db, eventId, locking: backend == .postgres) else {
            return FanOutStep(planned: 0, coalesced: 0, finished: true)
        }
        var ranges = try row.decode(column: "fan_out_ranges", as: Int.self)
        var splitLater = false
        if ranges <= 0, backend == .postgres {
            // One cursor: the step holds the event's advisory lock, and another instance planning the same
            // event skips it (`busy`) instead of planning the same page twice. Not the event's row lock:
            // `complete` locks that row to count deliveries, and a step skipping it then would stall the fan-out.
            // The row was read before the lock was taken: the page's write checks it is unchanged (`PagePosition`).
            guard try row.decode(column: "locked", as: Bool?.self) == true else { return FanOutStep(planned: 0, coalesced: 0, finished: false, busy: true) }
            if ranges == Self.splitAfterFirstPage {
                // The split writes from the row, so it reads it again under the lock: the holder before may have split,
                // and then this step plans a free range of it.
                guard let locked = try await Self.plannableEvent(db, eventId, locking: true) else {
                    return FanOutStep(planned: 0, coalesced: 0, finished: true)
                }
                row = locked
                ranges = try row.decode(column: "fan_out_ranges", as: Int.self)
                if ranges == Self.splitAfterFirstPage {
                    let cursor = try row.decodeNil(column: "fan_out_cursor") ? "" : try row.decode(column: "fan_out_cursor", as: String.self)
                    if try await Self.split(db, event: try Self.event(row), after: cursor, batchSize: fullPage) {
                        return FanOutStep(planned: 0, coalesced: 0, finished: false)
                    }
                    try await db.raw("UPDATE events SET fan_out_ranges = 0 WHERE event_id = \(bind: eventId)").run()
                    ranges = 0
                }
            } else if try row.decode(column: "state", as: String.self) == EventState.accepted.rawValue {
                // The first page goes out before the audience is counted and cut: that reads the whole audience.
                if let due = try row.decode(column: "unanalyzed", as: String?.self) { try await db.raw("ANALYZE \(unsafeRaw: due)").run() }
                splitLater = true
            }
        }
        var range: FanOutRange?
        if ranges > 0 {
            range = try Self.freeRange(in: row, eventId: eventId)
            if range == nil { return try await Self.noFreeRange(db, eventId: eventId) }
        }
        let event = try Self.event(row)
        let stored: String? = try row.decodeNil(column: "fan_out_cursor") ? nil : row.decode(column: "fan_out_cursor", as: String.self)
        let cursor = range?.cursor ?? stored ?? ""
        let (candidates, last, exhausted) = try await Self.pageCandidates(
            db, backend, event: event, after: cursor, upTo: range?.upperBound, limit: batchSize, now: now
        )
        let position = PagePosition(
            cursor: last ?? cursor, exhausted: exhausted, range: range,
            read: range == nil ? (try row.decode(column: "state", as: String.self), stored ?? "", ranges) : nil
        )
        let intervals = try Self.intervals(in: row)
        let twinsPossible = try row.decode(column: "app_pending", as: Bool.self)
        let planned = try await step(FanOutPage(event: event, candidates: candidates) { pushes, handOff in
            try await Self.store(
                db, backend, pushes, event: event, position: position, intervals: intervals, twinsPossible: twinsPossible, now: now,
                handOff: handOff, claim: claim
            )
        })
        if splitLater, !planned.finished, FanOutRanges.splittable(event.request.audience) {
            try await db.raw("UPDATE events SET fan_out_ranges = \(bind: Self.splitAfterFirstPage) WHERE event_id = \(bind: eventId)").run()
        }
        return planned
    }

    /// Stores a page's planned pushes and moves the event (or its range) past the page.
    private static func store(
        _ db: any SQLDatabase, _ backend: SQLBackend, _ pushes: [PlannedPush], event: EventRecord, position: PagePosition,
        intervals: [PushKind: Int], twinsPossible: Bool, now: Date, handOff: Int, claim: Claim
    ) async throws -> FanOutStep {
        // An event's pushes share one kind, so at most one minimum interval applies.
        let interval = pushes.first.flatMap { intervals[$0.kind] } ?? 0
        let (coalesced, handedOff) = try await Self.enqueue(
            db, backend, pushes, event: event, interval: interval, twinsPossible: twinsPossible, now: now, handOff: handOff, claim: claim
        )
        var finished = position.exhausted
        if let range = position.range {
            finished = try await Self.advance(db, range, to: position.cursor, rangeFinished: finished, matched: pushes.count, coalesced: coalesced)
            if finished { try await SQLWebhooks.recordIfSettled(db, eventId: event.id, now: now) }
        } else if let read = position.read {
            // Only if the row is as the page read it: else another step moved the event since, and planned this page already.
            guard let counts = try await db.raw("""
                UPDATE events SET state = \(bind: finished ? EventState.delivering.rawValue : EventState.fanningOut.rawValue),
                    fan_out_cursor = \(bind: position.cursor), matched = matched + \(bind: pushes.count),
                    coalesced = coalesced + \(bind: coalesced)
                WHERE event_id = \(bind: event.id) AND state = \(bind: read.state) AND COALESCE(fan_out_cursor, '') = \(bind: read.cursor)
                    AND fan_out_ranges = \(bind: read.ranges)
                RETURNING \(unsafeRaw: SQLWebhooks.countColumns), CASE WHEN \(SQLDelivery.eventIsDone) THEN 1 ELSE 0 END AS done
                """).first() else { throw EventMovedMeanwhile() }
            if try counts.decode(column: "done", as: Int.self) == 1 { try await SQLWebhooks.recordDone(db, counts: counts, now: now) }
        }
        if pushes.count > coalesced + handedOff.count, let announce = backend.announce(.pushesQueued) { try await db.raw(announce).run() }
        return FanOutStep(planned: pushes.count, coalesced: coalesced, finished: finished, handedOff: handedOff)
    }

    /// The event's row while its fan-out is still to do. `locking` (PostgreSQL), in the same round trip: column
    /// `locked` tells whether the event's advisory lock was taken, for an event not cut into ranges (else NULL); the
    /// `range_` columns are the first range no other step holds, locked (`freeRange`; NULL for none).
    /// Column `intervals`: the app's minimum intervals (`intervalsList`). Column `app_pending`: whether any push of the
    /// app is pending, which a new push could coalesce with (`enqueue`).
    /// Column `unanalyzed` (`locking`, an accepted event): the registration tables to analyze (`analyzeUnanalyzedTables`).
    private static func plannableEvent(_ db: any SQLDatabase, _ eventId: String, locking: Bool = false) async throws -> (any SQLRow)? {
        let lock: SQLQueryString = locking
            ? """
                , CASE WHEN fan_out_ranges <= 0 THEN pg_try_advisory_xact_lock(hashtextextended(\(bind: "fan-out " + eventId), 0)) END AS locked,
                CASE WHEN state = \(stored: EventState.accepted) THEN (\(unanalyzedTables)) END AS unanalyzed, free_range.*
                """
            : ""
        let range: SQLQueryString = locking ? " LEFT JOIN (\(freeRangeQuery(eventId))) AS free_range ON true" : ""
        return try await db.raw("""
            SELECT events.*\(lock), \(intervalsList("events.app_id")) AS intervals,
                EXISTS (SELECT 1 FROM outbox WHERE state = \(stored: OutboxState.pending) AND app_id = events.app_id) AS app_pending
            FROM events\(range) WHERE events.event_id = \(bind: eventId) AND events.state IN (\(stored: [EventState.accepted, .fanningOut]))
            """).first()
    }

    public func refreshPlanningStatistics() async throws {
        guard backend == .postgres else { return }
        try await oneStatement { db in try await Self.analyzeUnanalyzedTables(db) }
    }

    /// PostgreSQL plans the audience pages from table statistics. Registrations bulk-loaded before autovacuum first
    /// analyzed their tables have none, and each page then sorts every matching registration; so the server analyzes
    /// such tables at start and every minute, and an event's first step does too. The look asks the statistics
    /// functions about the five tables by name, not the `pg_stat_user_tables` view: the view joins every table of
    /// the database, and planning it would sit in the path of every event's first push.
    private static func analyzeUnanalyzedTables(_ db: any SQLDatabase) async throws {
        let due = try await db.raw("SELECT (\(unanalyzedTables)) AS due").first()?.decode(column: "due", as: String?.self)
        if let due { try await db.raw("ANALYZE \(unsafeRaw: due)").run() }
    }

    /// The registration tables due for `ANALYZE`, comma-separated, or NULL. Only names of the fixed list.
    private static var unanalyzedTables: SQLQueryString {
        """
        SELECT string_agg(name, ', ' ORDER BY name) FROM unnest(\(bind: registrationTables)) AS name, to_regclass(name) AS t(oid)
        WHERE pg_stat_get_last_analyze_time(t.oid) IS NULL AND pg_stat_get_last_autoanalyze_time(t.oid) IS NULL
            AND pg_stat_get_live_tuples(t.oid) + pg_stat_get_mod_since_analyze(t.oid) >= 1000
        """
    }

    private static let registrationTables = ["installations", "installation_channels", "widgets", "controls", "file_provider_domains"]

    private static func event(_ row: any SQLRow) throws -> EventRecord {
        let decoder = JSONDecoder()
        let target = try decoder.decode(EventTarget.self, from: Data(try row.decode(column: "target", as: String.self).utf8))
        let audience = try decoder.decode(Audience.self, from: Data(try row.decode(column: "audience", as: String.self).utf8))
        return EventRecord(
            id: try row.decode(column: "event_id", as: String.self), appId: try row.decode(column: "app_id", as: String.self),
            request: EventRequest(target: target, audience: audience),
            createdAt: Date(milliseconds: try row.decode(column: "created_at", as: Int64.self))
        )
    }

    /// The next page's candidates, the last installation id of the page (nil for none), and whether the audience (or
    /// the range) ends with it.
    private static func pageCandidates(
        _ db: any SQLDatabase, _ backend: SQLBackend, event: EventRecord, after cursor: String, upTo upperBound: String?, limit: Int, now: Date
    ) async throws -> (candidates: [FanOutCandidate], last: String?, exhausted: Bool) {
        if backend == .postgres, case .controls(let kinds, let filter) = event.request.target {
            return try await controlsPage(db, event: event, kinds: kinds, filtered: filter != nil, after: cursor, upTo: upperBound, limit: limit)
        }
        let (page, exhausted) = try await installationPage(db, backend, event: event, after: cursor, upTo: upperBound, limit: limit)
        return (try await candidates(db, backend, event: event, page: page, now: now), page.last?.id, exhausted)
    }

    /// The next installations of the audience, by id, that registered something the target can match, up to
    /// `upperBound`. - Returns: the page, and whether the audience (or the range) ends with it.
    private static func installationPage(
        _ db: any SQLDatabase, _ backend: SQLBackend, event: EventRecord, after cursor: String, upTo upperBound: String?, limit: Int
    ) async throws -> (page: [(id: String, environment: Environment)], exhausted: Bool) {
        // The range's end is a column, not a condition: bounded, PostgreSQL planned some pages as a sort of the
        // whole range (docs/performance.md); the database still does the comparison, in its own collation.
        let beyond: SQLQueryString = upperBound.map { "i.installation_id > \(bind: $0)" } ?? "false"
        var query: SQLQueryString = """
            SELECT installation_id, environment, \(beyond) AS beyond FROM installations i
            WHERE i.app_id = \(bind: event.appId) AND i.installation_id > \(bind: cursor)
            """
        query += audienceCondition(event)
        // `LIMIT 1` keeps each EXISTS a lookup by installation: SQLite 3.54 otherwise turns it into a join that
        // scans from the page cursor for every row (docs/performance.md).
        // On PostgreSQL the cursor is repeated inside: it merges the page with the registrations' index and does not
        // carry `i.installation_id > cursor` over, so each page would read that index from the app's first
        // registration. SQLite's per-installation lookup is slower with it (docs/performance.md).
        var same: SQLQueryString = "app_id = i.app_id AND installation_id = i.installation_id"
        if backend == .postgres { same += " AND installation_id > \(bind: cursor)" }
        switch event.request.target {
        case .widgets(let kinds, _):
            query += " AND EXISTS (SELECT 1 FROM widgets WHERE \(same)\(Self.kinds(kinds)) LIMIT 1)"
        case .controls(let kinds, _):
            query += " AND EXISTS (SELECT 1 FROM controls WHERE \(same)\(Self.kinds(kinds)) LIMIT 1)"
        case .fileProvider(let domain, _):
            query += " AND EXISTS (SELECT 1 FROM file_provider_domains WHERE \(same) AND domain_id = \(bind: domain) LIMIT 1)"
        }
        query += " ORDER BY i.installation_id LIMIT \(bind: limit)"
        let rows = try await db.raw(query).all()
        var page: [(id: String, environment: Environment)] = []
        for row in rows {
            if try row.decode(column: "beyond", as: Bool.self) { return (page, true) }
            page.append((try row.decode(column: "installation_id", as: String.self),
                         try row.decode(stored: "environment", as: Environment.self)))
        }
        return (page, rows.count < limit)
    }

    /// The audience's condition on installations `i`: none for the whole audience.
    static func audienceCondition(_ event: EventRecord) -> SQLQueryString {
        switch event.request.audience {
        case .all: ""
        case .users(let users): " AND i.user_id IN (\(binds: users))"
        case .installations(let ids): " AND i.installation_id IN (\(binds: ids))"
        case .channels(let channels):
            """
             AND i.installation_id IN (SELECT installation_id FROM installation_channels
                WHERE app_id = \(bind: event.appId) AND channel IN (\(binds: channels)))
            """
        }
    }

    /// The page's registrations that the target can match, as planner input.
    private static func candidates(
        _ db: any SQLDatabase, _ backend: SQLBackend, event: EventRecord, page: [(id: String, environment: Environment)], now: Date
    ) async throws -> [FanOutCandidate] {
        guard !page.isEmpty else { return [] }
        let environments = Dictionary(page.map { ($0.id, $0.environment) }, uniquingKeysWith: { first, _ in first })
        let ids = page.map(\.id)
        let app = event.appId
        // The page is a range of ids: bounding the lookup by it keeps it an index range scan on PostgreSQL,
        // which otherwise filtered the app's every registration by the IN list. For the whole audience the range
        // alone is the page (it holds every installation between its ends that registered a match), so the list of
        // its ids, a bind per installation, is left out. A registration committed after the page was read is not in
        // it, and is skipped below.
        let range = { (column: String) -> SQLQueryString in " AND \(unsafeRaw: column) BETWEEN \(bind: ids[0]) AND \(bind: ids[ids.count - 1])" }
        let within = { (column: String) -> SQLQueryString in
            if case .all = event.request.audience { return range(column) }
            return range(column) + " AND \(backend.among(column, ids))"
        }
        // PostgreSQL does not carry a range through a join's equality: without it on the joined table too, it may plan
        // a page as a hash join over the app's every widget or domain (docs/performance.md).
        let joined = { (column: String) -> SQLQueryString in backend == .postgres ? range(column) : "" }
        switch event.request.target {
        case .controls(let kinds, let filter):
            let rows = try await db.raw("""
                SELECT installation_id, kind, configuration, push_token FROM controls
                WHERE app_id = \(bind: app)\(within("installation_id"))\(Self.kinds(kinds))
                ORDER BY installation_id, position
                """).all()
            return try rows.compactMap { row in
                let id = try row.decode(column: "installation_id", as: String.self)
                guard let environment = environments[id] else { return nil }
                return try control(row, installationId: id, environment: environment, filtered: filter != nil)
            }
        case .widgets(let kinds, let filter):
            let rows = try await db.raw("""
                SELECT t.installation_id, t.push_token, w.kind, w.configuration FROM widget_tokens t
                JOIN widgets w ON w.app_id = t.app_id AND w.installation_id = t.installation_id
                WHERE t.app_id = \(bind: app)\(within("t.installation_id"))\(joined("w.installation_id"))\(Self.kinds(kinds, column: "w.kind"))
                ORDER BY t.installation_id, w.position
                """).all()
            var byInstallation: [(id: String, environment: Environment, token: String, entries: [(kind: String, configuration: JSONValue)])] = []
            for row in rows {
                let id = try row.decode(column: "installation_id", as: String.self)
                guard let environment = environments[id] else { continue }
                let entry = (try row.decode(column: "kind", as: String.self), try configuration(row, filtered: filter != nil))
                if byInstallation.last?.id == id {
                    byInstallation[byInstallation.count - 1].entries.append(entry)
                } else {
                    byInstallation.append((id, environment, try row.decode(column: "push_token", as: String.self), [entry]))
                }
            }
            return byInstallation.map {
                FanOutCandidate(installationId: $0.id, environment: $0.environment, token: $0.token, entries: $0.entries)
            }
        case .fileProvider(let domain, let container):
            let rows = try await db.raw("""
                SELECT t.installation_id, t.push_token, d.replicated FROM file_provider_tokens t
                JOIN file_provider_domains d ON d.app_id = t.app_id AND d.installation_id = t.installation_id
                WHERE t.app_id = \(bind: app)\(within("t.installation_id"))\(joined("d.installation_id")) AND d.domain_id = \(bind: domain)
                ORDER BY t.installation_id
                """).all()
            let live = Set(try await db.raw("""
                SELECT installation_id FROM enumerators WHERE app_id = \(bind: app)\(within("installation_id"))
                    AND domain_id = \(bind: domain) AND container_id = \(bind: container) AND expires_at > \(bind: now.milliseconds)
                """).all().map { try $0.decode(column: "installation_id", as: String.self) })
            return try rows.compactMap { row in
                let id = try row.decode(column: "installation_id", as: String.self)
                guard let environment = environments[id] else { return nil }
                return FanOutCandidate(
                    installationId: id, environment: environment,
                    token: try row.decode(column: "push_token", as: String.self),
                    domain: FileProviderDomain(id: domain, replicated: try row.decode(column: "replicated", as: Int.self) != 0),
                    liveContainers: live.contains(id) ? [container] : []
                )
            }
        }
    }

    /// The condition on the kind column: none for a target without kinds (every kind).
    static func kinds(_ kinds: [String], column: String = "kind") -> SQLQueryString {
        kinds.isEmpty ? "" : " AND \(unsafeRaw: column) IN (\(binds: kinds))"
    }

    /// A control's row (`push_token`, `kind`, `configuration`) as a candidate.
    static func control(_ row: any SQLRow, installationId: String, environment: Environment, filtered: Bool) throws -> FanOutCandidate {
        FanOutCandidate(
            installationId: installationId, environment: environment, token: try row.decode(column: "push_token", as: String.self),
            entries: [(try row.decode(column: "kind", as: String.self), try configuration(row, filtered: filtered))]
        )
    }

    /// A registration's configuration; parsed only when the event filters on it.
    static func configuration(_ row: any SQLRow, filtered: Bool) throws -> JSONValue {
        try configuration(filtered ? try row.decode(column: "configuration", as: String.self) : "", filtered: filtered)
    }

    static func configuration(_ text: String, filtered: Bool) throws -> JSONValue {
        guard filtered else { return .object([:]) }
        return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// Inserts the pushes; one already pending for the same token and payload absorbs the new one (`Coalescing`). With a
    /// minimum `interval` (seconds, 0 for none), a push waits until its token's last push is that old. Up to
    /// `handOff` pushes due `now` without a pending twin are stored in a handoff under `claim` and returned. Without
    /// `twinsPossible` (nothing of the app was pending when the step read its event) the twins are not looked up: a
    /// large fan-out handed off as it goes has none, and the look-up binds every token of the page.
    /// - Returns: how many were absorbed, and the pushes handed off.
    private static func enqueue(
        _ db: any SQLDatabase, _ backend: SQLBackend, _ pushes: [PlannedPush], event: EventRecord, interval: Int, twinsPossible: Bool,
        now: Date, handOff: Int, claim: Claim
    ) async throws -> (coalesced: Int, handedOff: [OutboxPush]) {
        var twinsPossible = twinsPossible
        var coalesced = 0
        var handedOff: [OutboxPush] = []
        for chunk in pushes.chunked(1_000) {
            let kind = chunk[chunk.startIndex].kind
            let origin = OutboxRows.Origin(appId: event.appId, eventId: event.id, eventCreatedAt: event.createdAt.milliseconds, kind: kind)
            var rows = OutboxRows(origin)
            var handoff = Handoff()
            let lastSent = try await Self.lastSent(db, appId: event.appId, kind: kind, of: chunk, interval: interval)
            let due = { (push: PlannedPush) in
                MinimumInterval.due(planned: event.createdAt.milliseconds, lastSent: lastSent[push.token], seconds: interval)
            }
            let dueNow = chunk.indices.filter { due(chunk[$0]) <= now.milliseconds }.prefix(max(0, handOff - handedOff.count))
            let sendNow = try await Self.sendableNow(db, backend, chunk, Array(dueNow), appId: event.appId, twinsPossible: twinsPossible)
            for index in chunk.indices {
                let push = chunk[index]
                guard sendNow.contains(index) else {
                    rows.append(
                        id: PushIds.next(), installationId: push.installationId, token: push.token, environment: push.environment,
                        payload: push.payload, due: due(push)
                    )
                    continue
                }
                handedOff.append(OutboxPush(
                    id: handoff.append(push), appId: event.appId, eventId: event.id, installationId: push.installationId, token: push.token,
                    kind: push.kind, environment: push.environment, payload: push.payload, attempts: 0, eventCreatedAt: event.createdAt
                ))
            }
            try await handoff.insert(db, origin, claim: claim)
            coalesced += try await rows.insert(db, backend)
            if !rows.isEmpty { twinsPossible = true }  // the next chunk's twins may be this one's rows
        }
        return (coalesced, handedOff)
    }

    /// Of the pushes of `chunk` at `positions`, those no pending push absorbs (by `coalescingKey`: a page plans each
    /// key once), by position. Without `twinsPossible`, all of them, and no key is built.
    private static func sendableNow(
        _ db: any SQLDatabase, _ backend: SQLBackend, _ chunk: ArraySlice<PlannedPush>, _ positions: [Int], appId: String, twinsPossible: Bool
    ) async throws -> Set<Int> {
        guard !positions.isEmpty else { return [] }
        guard twinsPossible else { return Set(positions) }
        let twins = Set(try await db.raw("""
            SELECT token, payload FROM outbox
            WHERE app_id = \(bind: appId) AND \(backend.among("token", positions.map { chunk[$0].token })) AND state = \(stored: OutboxState.pending)
            """).all().map {
            PlannedPush.coalescingKey(token: try $0.decode(column: "token", as: String.self), payload: try $0.decode(column: "payload", as: String.self))
        })
        return Set(positions.filter { !twins.contains(chunk[$0].coalescingKey) })
    }
}

/// Where a page read ends: the cursor its pushes move the event (or range) to, and whether the audience ends there.
private struct PagePosition: Sendable {
    let cursor: String
    let exhausted: Bool
    let range: FanOutRange?
    /// Outside a range: the event's state, cursor ("" for none) and `fan_out_ranges` as the page read them.
    let read: (state: String, cursor: String, ranges: Int)?
}

/// The event's row changed between the page's read and its write (another instance's step committed before this
/// one took the lock): the page is rolled back and the step reports `busy`.
private struct EventMovedMeanwhile: Error {}
