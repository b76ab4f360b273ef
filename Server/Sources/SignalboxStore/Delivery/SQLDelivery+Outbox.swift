import Foundation
import SQLKit
import SignalboxModel

/// The outbox: claiming due pushes, recording their results, pruning dead tokens.
extension SQLDelivery {
    @discardableResult
    func releaseClaims(now: Date) async throws -> Int {
        // SQLite belongs to one process: a claim by any other owner is a previous process's. On a shared
        // database only an ended lease says its owner is gone.
        let released: SQLQueryString = backend == .sqlite
            ? "(claimed_by IS NULL OR claimed_by <> \(bind: database.owner))"
            : "(lease_until IS NULL OR lease_until < \(bind: now.milliseconds))"
        return try await transaction { db in
            let rows = try await db.raw("SELECT * FROM outbox WHERE state = \(stored: OutboxState.sending) AND \(released) ORDER BY push_id\(self.backend.skipLocked)").all()
            for push in try rows.map(Self.push) {
                try await Self.returnToPending(db, push, at: Date(milliseconds: 0), usedAttempt: false)
            }
            return try await rows.count + Handoff.release(db, self.backend, where: released)
        }
    }

    /// The rule is `ClaimOrder` (SignalboxModel), stated here in SQL for the indexes: each app's due pushes ranked by
    /// due time then push id, taken in turns. Where the rule breaks ties between apps by app id, this leaves them to
    /// the database, and it returns the claimed rows in no particular order.
    func claimDuePushes(now: Date, limit: Int, pausedApps: Set<String>) async throws -> [OutboxPush] {
        let owner = database.owner
        let leaseUntil = (now + database.claimLease.seconds).milliseconds
        let backend = backend
        // Rows are decoded after the connection is released: decoding a thousand is a few milliseconds of Swift.
        return try await oneStatement { db in
            // One statement: no ids travel back as binds. Each app gives at most `limit` of its due pushes,
            // numbered by age (`turn`); the claim takes every app's first, then every app's second, and so on.
            // On PostgreSQL the picked rows are locked and rows another instance is claiming are skipped.
            let paused: SQLQueryString = pausedApps.isEmpty ? "" : " AND app_id NOT IN (\(binds: Array(pausedApps)))"
            let columns: SQLQueryString = backend == .postgres ? "push_id, next_attempt_at" : "push_id"
            let appsDue: SQLQueryString = """
                SELECT \(columns) FROM outbox WHERE state = \(stored: OutboxState.pending) AND app_id = a.app_id\(paused)
                    AND next_attempt_at <= \(bind: now.milliseconds)
                ORDER BY next_attempt_at LIMIT \(bind: limit)
                """
            // PostgreSQL runs the per-app pick once per app only as a LATERAL join (as `IN` it runs it for every
            // outbox row; docs/reliability.md); SQLite has no LATERAL and plans `IN` well.
            let due: SQLQueryString = backend == .postgres
                ? """
                    SELECT d.push_id, d.next_attempt_at,
                        ROW_NUMBER() OVER (PARTITION BY a.app_id ORDER BY d.next_attempt_at, d.push_id) AS turn
                    FROM apps a CROSS JOIN LATERAL (\(appsDue)) d
                    """
                : """
                    SELECT o.push_id, o.next_attempt_at,
                        ROW_NUMBER() OVER (PARTITION BY o.app_id ORDER BY o.next_attempt_at, o.push_id) AS turn
                    FROM apps a JOIN outbox o ON o.push_id IN (\(appsDue))
                    """
            return try await db.raw("""
                \(Self.appsWithPendingPushes),
                due AS (\(due)),
                picked AS (
                    SELECT push_id FROM outbox WHERE state = \(stored: OutboxState.pending) AND push_id IN (
                        SELECT push_id FROM due ORDER BY turn, next_attempt_at LIMIT \(bind: limit))\(backend.skipLocked))
                UPDATE outbox SET state = \(stored: OutboxState.sending), claimed_by = \(bind: owner), lease_until = \(bind: leaseUntil)
                WHERE push_id IN (SELECT push_id FROM picked)
                RETURNING *
                """).all()
        }.map(Self.push)
    }

    func complete(_ completions: [PushCompletion], now: Date) async throws -> CompletionSummary {
        let owner = database.owner
        return try await transaction { db in
            var summary = CompletionSummary()
            // Fenced: each change applies only to a push this process still holds (`state = 'sending'` and its
            // claim); one whose lease ended and that another instance took over is that instance's to record.
            // A push is held when its handoff settled it here (`settledNow`) or its outbox row was still claimed (`heldRows`).
            let ids = completions.map(\.push.id)  // read once: each read of a push's field retains and releases its box
            let positions = Handoff.positions(ofPushes: ids)
            var heldRows: Set<String> = []
            var finishing: [(completion: Int, check: PushLife.TokenCheck)] = []  // those that leave the outbox now
            var lines: [DeliveryLogEntry] = []  // the delivery log's, of the attempts recorded here
            func log(_ completion: PushCompletion, _ outcome: DeliveryOutcome) {
                if self.writesDeliveryLog { lines.append(SQLDeliveryLog.logLine(completion, outcome: outcome, now: now)) }
            }
            // Pushes in a handoff are settled there first; those going back to pending get new outbox rows.
            let settledNow = try await Handoff.settle(db, self.backend, owner: owner, positions)
            var retries = Handoff.Retries()
            // Outbox rows are changed in push id order, the lock order; pushes of a handoff change no row of their own.
            let inHandoffs = completions.indices.filter { positions[$0] != nil }
            let withRows = completions.indices.filter { positions[$0] == nil }.sorted { ids[$0] < ids[$1] }
            for index in inHandoffs + withRows {
                let completion = completions[index]
                let push = completion.push
                switch PushLife.step(for: completion.result) {
                case .backToPending(let at, let usesAttempt, let logged):
                    if positions[index] != nil {
                        guard settledNow[index] else { continue }
                        retries.add(push, at: at, attempts: push.attempts + (usesAttempt ? 1 : 0))
                    } else {
                        guard try await Self.returnToPending(db, push, at: at, usedAttempt: usesAttempt, heldBy: owner) else { continue }
                        heldRows.insert(push.id)
                    }
                    log(completion, logged)
                case .leaves(let check):
                    finishing.append((index, check))
                }
            }
            try await retries.insert(db, self.backend)
            let rowIds = finishing.filter { positions[$0.completion] == nil }.map { completions[$0.completion].push.id }
            for chunk in rowIds.chunked(1_000) {
                for row in try await db.raw("""
                    DELETE FROM outbox WHERE \(self.backend.among("push_id", Array(chunk))) AND state = \(stored: OutboxState.sending) AND claimed_by = \(bind: owner)
                    RETURNING push_id
                    """).all() {
                    heldRows.insert(try row.decode(column: "push_id", as: String.self))
                }
            }
            func held(_ index: Int) -> Bool { positions[index] != nil ? settledNow[index] : heldRows.contains(completions[index].push.id) }
            summary.claimsLost = completions.indices.filter { !held($0) }.count
            var credits: [(push: OutboxPush, counter: EventCounter)] = []
            for (index, check) in finishing where held(index) {
                let completion = completions[index]
                let push = completion.push
                let removed: Bool
                switch check {
                case .none:
                    removed = false
                case .removeUnlessRenewed(let since, let reason):
                    removed = try await SQLRegistry.pruneIfRegisteredBefore(db, appId: push.appId, token: push.token, since: since)
                    if removed {
                        try await SQLWebhooks.recordPrunedToken(db, appId: push.appId, token: push.token, reason: reason, apnsTimestamp: since, now: now)
                    }
                case .strike(let reason):
                    removed = try await SQLRegistry.strike(db, appId: push.appId, token: push.token)
                    if removed {
                        try await SQLWebhooks.recordPrunedToken(db, appId: push.appId, token: push.token, reason: reason, apnsTimestamp: nil, now: now)
                    }
                }
                summary.tokensPruned += removed ? 1 : 0
                let outcome = PushLife.outcome(of: check, tokenRemoved: removed)
                if let counter = outcome.counter { credits.append((push, counter)) }
                log(completion, outcome)
            }
            let delivered = credits.filter { $0.counter == .delivered }.map(\.push)
            if !delivered.isEmpty {
                let (limited, strikes) = try await Self.afterDelivery(db)
                try await Self.recordSent(db, delivered, limited: limited, now: now)
                if strikes { try await SQLRegistry.clearStrikes(db, self.backend, delivered) }
            }
            if !lines.isEmpty { try await SQLDeliveryLog.insertLog(db, self.backend, lines) }
            // Last: it locks the events' rows, which each fan-out step of those events updates too; taken last,
            // they are held only until the commit, and a step waits less for them.
            try await Self.credit(db, credits, now: now)
            return summary
        }
    }

    func nextDueDate(pausedApps: Set<String>) async throws -> Date? {
        try await oneStatement { db in
            // Per app, one seek each (`outbox_pending_app`).
            let paused: SQLQueryString = pausedApps.isEmpty ? "" : " AND app_id NOT IN (\(binds: Array(pausedApps)))"
            let query: SQLQueryString = """
                \(Self.appsWithPendingPushes)
                SELECT MIN(due) AS due FROM (
                    SELECT (SELECT MIN(next_attempt_at) FROM outbox WHERE state = \(stored: OutboxState.pending) AND app_id = apps.app_id) AS due
                    FROM apps WHERE apps.app_id IS NOT NULL\(paused)) AS per_app
                """
            guard let row = try await db.raw(query).first(), try !row.decodeNil(column: "due") else { return nil }
            return Date(milliseconds: try row.decode(column: "due", as: Int64.self))
        }
    }

    func sharedTime() async throws -> Date? {
        try await database.sharedTime()
    }

    func outboxDepth() async throws -> Int {
        try await oneStatement { db in
            try await db.raw("SELECT (SELECT COUNT(*) FROM outbox) + \(Handoff.remaining(appId: nil)) AS n").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// `WITH RECURSIVE apps`: the apps with pending pushes (a trailing NULL row ends the list), walked in
    /// `outbox_pending_app` one seek per app instead of a scan of every pending push.
    private static var appsWithPendingPushes: SQLQueryString { """
        WITH RECURSIVE apps (app_id) AS (
            SELECT MIN(app_id) FROM outbox WHERE state = \(stored: OutboxState.pending)
            UNION ALL
            SELECT (SELECT MIN(app_id) FROM outbox WHERE state = \(stored: OutboxState.pending) AND app_id > apps.app_id)
            FROM apps WHERE apps.app_id IS NOT NULL)
        """ }

    /// The pending push for this token and payload, if any: there is at most one (the unique `outbox_pending` index).
    static func pendingPush(appId: String, token: String, payload: String) -> SQLQueryString {
        "app_id = \(bind: appId) AND token = \(bind: token) AND payload = \(bind: payload) AND state = \(stored: OutboxState.pending)"
    }

    private static func push(_ row: any SQLRow) throws -> OutboxPush {
        OutboxPush(
            id: try row.decode(column: "push_id", as: String.self), appId: try row.decode(column: "app_id", as: String.self),
            eventId: try row.decode(column: "event_id", as: String.self),
            installationId: try row.decode(column: "installation_id", as: String.self),
            token: try row.decode(column: "token", as: String.self),
            kind: try row.decode(stored: "kind", as: PushKind.self),
            environment: try row.decode(stored: "environment", as: Environment.self),
            payload: try row.decode(column: "payload", as: String.self), attempts: try row.decode(column: "attempts", as: Int.self),
            eventCreatedAt: Date(milliseconds: try row.decode(column: "event_created_at", as: Int64.self)),
            carriesAbsorbedEvents: try row.decode(column: "absorbed", as: Int.self) != 0
        )
    }

    /// Makes a claimed push pending again; if a newer push for the same token and payload is already
    /// pending, that one carries this push's events instead (`Coalescing`, `Carried.absorb(returning:)`). With
    /// `heldBy`, only while that owner still holds the claim. - Returns: whether the push was changed.
    @discardableResult
    private static func returnToPending(_ db: any SQLDatabase, _ push: OutboxPush, at: Date, usedAttempt: Bool, heldBy owner: String? = nil) async throws -> Bool {
        let fence: SQLQueryString = owner.map { " AND state = \(stored: OutboxState.sending) AND claimed_by = \(bind: $0)" } ?? ""
        let twin = try await db.raw("SELECT push_id FROM outbox WHERE \(pendingPush(appId: push.appId, token: push.token, payload: push.payload))")
            .first()?.decode(column: "push_id", as: String.self)
        guard let twin else {
            return try await db.raw("""
                UPDATE outbox SET state = \(stored: OutboxState.pending), next_attempt_at = \(bind: at.milliseconds),
                    attempts = attempts + \(bind: usedAttempt ? 1 : 0), claimed_by = NULL, lease_until = NULL
                WHERE push_id = \(bind: push.id)\(fence) RETURNING push_id
                """).first() != nil
        }
        guard try await db.raw("DELETE FROM outbox WHERE push_id = \(bind: push.id)\(fence) RETURNING push_id").first() != nil else { return false }
        // The twin carries the push's own event and every push it had absorbed, each counted (`Carried.absorb(returning:)`).
        try await db.raw("""
            INSERT INTO outbox_absorbed (push_id, event_id, app_id, pushes)
            SELECT \(bind: twin), event_id, MIN(app_id), SUM(pushes) FROM (
                SELECT event_id, app_id, pushes FROM outbox_absorbed WHERE push_id = \(bind: push.id)
                UNION ALL SELECT \(bind: push.eventId), \(bind: push.appId), 1) AS carried
            WHERE true GROUP BY event_id
            ON CONFLICT (push_id, event_id) DO UPDATE SET pushes = outbox_absorbed.pushes + excluded.pushes
            """).run()
        try await db.raw("UPDATE outbox SET absorbed = 1 WHERE push_id = \(bind: twin)").run()
        try await db.raw("DELETE FROM outbox_absorbed WHERE push_id = \(bind: push.id)").run()
        return true
    }

    /// Adds finished pushes' outcomes to the counters of every event they carry (their outbox rows are gone):
    /// `Coalescing.Carried.credits`.
    private static func credit(_ db: any SQLDatabase, _ credits: [(push: OutboxPush, counter: EventCounter)], now: Date) async throws {
        guard !credits.isEmpty else { return }
        var counts: [String: [EventCounter: Int]] = [:]  // event → counter → count
        var carriers: [String: EventCounter] = [:]  // a push carrying absorbed events → its counter
        // Consecutive credits mostly share event and counter: counted as a run, hashed once per run.
        var run: (event: String, counter: EventCounter, count: Int)?
        func endRun() {
            if let run { counts[run.event, default: [:]][run.counter, default: 0] += run.count }
        }
        for credit in credits {
            let push = credit.push
            if push.carriesAbsorbedEvents { carriers[push.id] = credit.counter }
            let event = push.eventId
            if let current = run, current.counter == credit.counter, current.event == event {
                run?.count += 1
            } else {
                endRun()
                run = (event, credit.counter, 1)
            }
        }
        endRun()
        for chunk in carriers.keys.sorted().chunked(1_000).map(Array.init) {
            for row in try await db.raw("SELECT push_id, event_id, pushes FROM outbox_absorbed WHERE push_id IN (\(binds: chunk))").all() {
                guard let name = carriers[try row.decode(column: "push_id", as: String.self)] else { continue }
                counts[try row.decode(column: "event_id", as: String.self), default: [:]][name, default: 0] += try row.decode(column: "pushes", as: Int.self)
            }
            try await db.raw("DELETE FROM outbox_absorbed WHERE push_id IN (\(binds: chunk))").run()
        }
        // One statement per event, in event id order (two instances crediting the same events cannot deadlock); it
        // returns the event's counts, so the credit that finished the event reports it without reading it again.
        for (event, counters) in counts.sorted(by: { $0.key < $1.key }) {
            let additions = counters.sorted { $0.key.rawValue < $1.key.rawValue }.map { counter, count -> SQLQueryString in
                "\(ident: counter.rawValue) = \(ident: counter.rawValue) + \(bind: count)"
            }
            guard let row = try await db.raw("""
                UPDATE events SET \(additions.joined(separator: ", ")) WHERE event_id = \(bind: event)
                RETURNING \(unsafeRaw: SQLWebhooks.countColumns), CASE WHEN \(SQLDelivery.eventIsDone) THEN 1 ELSE 0 END AS done
                """).first() else { continue }
            try await SQLWebhooks.recordIfFinished(db, counts: row, added: counters.values.reduce(0, +), now: now)
        }
    }
}
