import Foundation
import SQLKit
import SignalboxModel

/// The delivery log: written with the push results (`complete`) or alone for direct pushes, read per token
/// and per event, pruned by age and count.
extension SQLRegistryStore: DeliveryLogStore {
    public func logDeliveries(_ entries: [DeliveryLogEntry]) async throws {
        guard writesDeliveryLog, !entries.isEmpty else { return }
        let backend = backend
        try await transaction { db in try await Self.insertLog(db, backend, entries) }
    }

    /// The token's lines that are not `delivered` (and its direct pushes) by the token's index; its `delivered` lines
    /// through the installations that have it registered or that its other lines name. A token an installation
    /// replaced without a failure shows its `delivered` lines only under that installation.
    public func deliveryLog(appId: String, token: String, limit: Int) async throws -> [DeliveryLogEntry] {
        try await oneStatement { db in
            let byToken: SQLQueryString = "app_id = \(bind: appId) AND token = \(bind: token) AND (\(unsafeRaw: Self.indexedByToken))"
            let registered = ["controls", "widget_tokens", "file_provider_tokens"].map { table -> SQLQueryString in
                "SELECT installation_id FROM \(unsafeRaw: table) WHERE app_id = \(bind: appId) AND push_token = \(bind: token)"
            }
            // DISTINCT over UNION ALL: SQLite plans a UNION of these as ordered scans of each table's primary key.
            return try await db.raw("""
                WITH installs (id) AS (SELECT DISTINCT installation_id FROM (
                    \(registered.joined(separator: " UNION ALL "))
                    UNION ALL SELECT installation_id FROM delivery_log WHERE \(byToken) AND installation_id IS NOT NULL) AS ids)
                SELECT * FROM delivery_log WHERE \(byToken)
                UNION ALL
                \(Self.installationLines(appId: appId, where: "token = \(bind: token) AND outcome = 'delivered'"))
                ORDER BY logged_at DESC, attempt DESC LIMIT \(bind: limit)
                """).all().map(Self.logEntry)
        }
    }

    /// The lines `delivery_log_token` holds (its `WHERE`, written the same so that both databases use it).
    private static let indexedByToken = "outcome <> 'delivered' OR installation_id IS NULL"

    public func deliveryLog(appId: String, installationId: String, limit: Int) async throws -> [DeliveryLogEntry] {
        try await oneStatement { db in
            try await db.raw("""
                WITH installs (id) AS (SELECT \(bind: installationId))
                \(Self.installationLines(appId: appId))
                ORDER BY logged_at DESC, attempt DESC LIMIT \(bind: limit)
                """).all().map(Self.logEntry)
        }
    }

    /// The lines of the installations in `installs (id)` (a `WITH` query) that match `condition`: from the
    /// installation index, and lines of large events (`by_event`) from the event index, for each large event of
    /// the app. `CROSS JOIN` keeps SQLite's join order: the few ids first, then one index seek for each.
    private static func installationLines(appId: String, where condition: SQLQueryString = "1 = 1") -> SQLQueryString {
        """
        SELECT line.* FROM installs CROSS JOIN delivery_log AS line
            WHERE line.app_id = \(bind: appId) AND line.installation_id = installs.id AND line.by_event = 0 AND \(condition)
        UNION ALL
        SELECT line.* FROM delivery_log_large_events AS large CROSS JOIN installs CROSS JOIN delivery_log AS line
            WHERE large.app_id = \(bind: appId) AND line.event_id = large.event_id AND line.installation_id = installs.id
                AND line.app_id = large.app_id AND line.by_event = 1 AND \(condition)
        """
    }

    public func deliveryLog(appId: String, eventId: String, limit: Int) async throws -> [DeliveryLogEntry] {
        try await oneStatement { db in
            try await db.raw("""
                SELECT * FROM delivery_log WHERE event_id = \(bind: eventId) AND app_id = \(bind: appId)
                ORDER BY logged_at DESC, attempt DESC LIMIT \(bind: limit)
                """).all().map(Self.logEntry)
        }
    }

    public func deliveryOutcomes(appId: String, since: Date) async throws -> [String: Int] {
        try await outcomes("app_id = \(bind: appId) AND logged_at >= \(bind: since.milliseconds)")
    }

    public func deliveryOutcomes(appId: String, eventId: String) async throws -> [String: Int] {
        try await outcomes("event_id = \(bind: eventId) AND app_id = \(bind: appId)")
    }

    private func outcomes(_ filter: SQLQueryString) async throws -> [String: Int] {
        try await oneStatement { db in
            var counts: [String: Int] = [:]
            for row in try await db.raw("SELECT outcome, COUNT(*) AS n FROM delivery_log WHERE \(filter) GROUP BY outcome").all() {
                counts[try row.decode(column: "outcome", as: String.self)] = try row.decode(column: "n", as: Int.self)
            }
            return counts
        }
    }

    /// About how many lines a prune deletes per transaction.
    static let pruneTurn = 5_000

    public func pruneDeliveryLog(before cutoff: Date, keepPerApp: Int) async throws -> Int {
        let apps = try await oneStatement { db in
            try await db.raw("SELECT app_id FROM apps").all().map { try $0.decode(column: "app_id", as: String.self) }
        }
        var removed = 0
        // Short transactions (the storage connection is shared): each deletes at most `pruneTurn` lines, the oldest
        // first, found by seeks in `delivery_log_app`; lines written meanwhile are newer than both limits.
        for app in apps {
            let oldest = try await oneStatement { db in
                try await db.raw("""
                    SELECT logged_at FROM delivery_log WHERE app_id = \(bind: app) ORDER BY logged_at DESC LIMIT 1 OFFSET \(bind: keepPerApp)
                    """).first()?.decode(column: "logged_at", as: Int64.self)
            }.map { max(cutoff.milliseconds, $0 + 1) } ?? cutoff.milliseconds
            while true {
                let turn = try await transaction { db in
                    // The turn takes the lines up to the `pruneTurn`-th old one's time (with the lines logged in the same
                    // millisecond, so each turn makes progress), or all the old ones when fewer are left.
                    let end = try await db.raw("""
                        SELECT logged_at FROM delivery_log WHERE app_id = \(bind: app) AND logged_at < \(bind: oldest)
                        ORDER BY logged_at LIMIT 1 OFFSET \(bind: Self.pruneTurn)
                        """).first()?.decode(column: "logged_at", as: Int64.self)
                    let old: SQLQueryString = end.map { "app_id = \(bind: app) AND logged_at <= \(bind: $0)" } ?? "app_id = \(bind: app) AND logged_at < \(bind: oldest)"
                    let count = try await db.raw("SELECT COUNT(*) AS n FROM delivery_log WHERE \(old)").first()?.decode(column: "n", as: Int.self) ?? 0
                    if count > 0 { try await db.raw("DELETE FROM delivery_log WHERE \(old)").run() }
                    return (count: count, last: end == nil)
                }
                removed += turn.count
                if turn.last { break }
            }
            // A large event stays listed while it has lines (the lookups by installation probe each one listed).
            try await oneStatement { db in
                try await db.raw("""
                    DELETE FROM delivery_log_large_events WHERE app_id = \(bind: app) AND NOT EXISTS (
                        SELECT 1 FROM delivery_log WHERE delivery_log.event_id = delivery_log_large_events.event_id)
                    """).run()
            }
        }
        return removed
    }

    /// Logs the attempts `complete` records, with the outcome it decided (`credits`: final ones by push id).
    static func logCompletions(_ db: any SQLDatabase, _ backend: SQLBackend, _ completions: [PushCompletion], credits: [String: String], now: Date) async throws {
        let entries = completions.map { completion in
            let push = completion.push
            let outcome: String
            switch completion.result {
            case .retry: outcome = "retry"
            case .postpone: outcome = "postponed"
            default: outcome = credits[push.id] ?? "failed"
            }
            return DeliveryLogEntry(
                appId: push.appId, token: push.token, pushType: push.kind.pushType.rawValue, eventId: push.eventId,
                installationId: push.installationId, outcome: outcome,
                answer: completion.answer, attempt: push.attempts + 1, at: now
            )
        }
        try await insertLog(db, backend, entries)
    }

    /// Lines that share everything but their token, apns-id and installation (in practice: one recording's
    /// delivered pushes of one event) go in as runs of up to 5,000: the shared values are bound once, the rest is
    /// one JSON row per line (`JSONRows`).
    private static func insertLog(_ db: any SQLDatabase, _ backend: SQLBackend, _ entries: [DeliveryLogEntry]) async throws {
        for run in LogRun.runs(of: entries) {
            for start in stride(from: 0, to: run.lines.count, by: 5_000) {
                var rows = JSONRows([.text, .text, .text])
                for entry in run.lines[start..<min(start + 5_000, run.lines.count)] {
                    rows.append([.text(entry.token), .text(entry.answer.apnsId), .text(entry.installationId)])
                }
                try await db.raw("""
                    INSERT INTO delivery_log (app_id, push_type, event_id, logged_at, outcome, status, reason, attempt, by_event,
                        token, apns_id, installation_id)
                    SELECT \(bind: run.key.appId), \(bind: run.key.pushType), \(bind: run.key.eventId), \(bind: run.key.at),
                        \(bind: run.key.outcome), \(bind: run.key.status), \(bind: run.key.reason), \(bind: run.key.attempt),
                        \(bind: run.byEvent ? 1 : 0), c0, c1, c2
                    FROM (\(backend.select(rows))) AS line
                    """).run()
            }
            if run.byEvent, let event = run.key.eventId {
                try await db.raw("""
                    INSERT INTO delivery_log_large_events (app_id, event_id) VALUES (\(bind: run.key.appId), \(bind: event))
                    ON CONFLICT DO NOTHING
                    """).run()
            }
        }
    }

    private static func logEntry(_ row: any SQLRow) throws -> DeliveryLogEntry {
        DeliveryLogEntry(
            appId: try row.decode(column: "app_id", as: String.self), token: try row.decode(column: "token", as: String.self),
            pushType: try row.decode(column: "push_type", as: String.self),
            eventId: try row.decode(column: "event_id", as: String?.self),
            installationId: try row.decode(column: "installation_id", as: String?.self),
            outcome: try row.decode(column: "outcome", as: String.self),
            answer: DeliveryAnswer(
                status: try row.decode(column: "status", as: Int?.self), reason: try row.decode(column: "reason", as: String?.self),
                apnsId: try row.decode(column: "apns_id", as: String?.self)
            ),
            attempt: try row.decode(column: "attempt", as: Int.self),
            at: Date(milliseconds: try row.decode(column: "logged_at", as: Int64.self))
        )
    }
}
