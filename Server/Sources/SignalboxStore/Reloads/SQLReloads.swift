import Foundation
import SQLKit
import SignalboxAPNs
import SignalboxModel

/// Reload receipts in `reloads`: one row per receipt, the matched ones with their push's event. A push answers one
/// receipt per kind (the unique index on the event per installation, type and kind); a second one is kept unmatched.
struct SQLReloads: ReloadStore, SQLStore {
    let database: SQLDatabaseClient

    /// Delivered lines read to match one batch, at most (newest first): a backstop, the batch's windows bound the read.
    static let reloadMatchLines = 500

    func recordReloads(appId: String, installationId: String, _ receipts: [ReloadReceipt], window: TimeInterval, keep: Int, now: Date)
        async throws -> RecordedReloads
    {
        guard let earliest = receipts.map(\.at).min(), let latest = receipts.map(\.at).max() else { return RecordedReloads(matches: [], dropped: 0) }
        let lines = try await deliveredLines(appId: appId, installationId: installationId, from: earliest - window, through: latest)
        let registered = try await registeredKinds(appId: appId, installationId: installationId)
        return try await transaction { db in
            var matches: [ReloadMatch] = []
            for receipt in receipts {
                // The kind must be registered: a widget push reloads the installation's widget kinds, a control push
                // the control that holds its token.
                let tokens = registered[receipt.pushType.rawValue + "|" + receipt.kind]
                let push = lines.first { line in
                    line.pushType == receipt.pushType.rawValue && line.at <= receipt.at && receipt.at.timeIntervalSince(line.at) <= window
                        && (receipt.pushType != .controls || tokens?.contains(line.token) == true)
                }
                var match = ReloadMatch(receipt: receipt, registered: tokens != nil, eventId: nil, eventToReload: nil)
                if tokens != nil, let push {
                    let eventId = push.eventId
                    let created = try await db.raw("SELECT created_at FROM events WHERE event_id = \(bind: eventId)").first()
                        .map { Date(milliseconds: try $0.decode(column: "created_at", as: Int64.self)) }
                    let inserted = try await db.raw("""
                        INSERT INTO reloads (app_id, installation_id, push_type, kind, event_id, reloaded_at, delivered_at, event_created_at, recorded_at)
                        VALUES (\(bind: appId), \(bind: installationId), \(bind: receipt.pushType.rawValue), \(bind: receipt.kind), \(bind: eventId),
                            \(bind: receipt.at.milliseconds), \(bind: push.at.milliseconds), \(bind: created?.milliseconds), \(bind: now.milliseconds))
                        ON CONFLICT DO NOTHING RETURNING event_id
                        """).first() != nil
                    if inserted {
                        match = ReloadMatch(receipt: receipt, registered: true, eventId: eventId, eventToReload: created.map { max(0, receipt.at.timeIntervalSince($0)) })
                    }
                }
                if match.eventId == nil {
                    try await db.raw("""
                        INSERT INTO reloads (app_id, installation_id, push_type, kind, reloaded_at, recorded_at)
                        VALUES (\(bind: appId), \(bind: installationId), \(bind: receipt.pushType.rawValue), \(bind: receipt.kind),
                            \(bind: receipt.at.milliseconds), \(bind: now.milliseconds))
                        """).run()
                }
                matches.append(match)
            }
            let dropped = try await Self.dropOldestReloads(db, appId: appId, installationId: installationId, keep: keep)
            return RecordedReloads(matches: matches, dropped: dropped)
        }
    }

    /// A delivered push a receipt may answer.
    private struct DeliveredLine {
        let token: String
        let pushType: String
        let eventId: String
        let at: Date
    }

    /// The installation's delivered widget and control lines of an event logged in `from...through`, newest first:
    /// rows by `delivery_log_installation`, and the lines for it in runs logged then (`delivery_runs_app`, its
    /// range of installation ids tested before a run is unpacked).
    private func deliveredLines(appId: String, installationId: String, from: Date, through: Date) async throws -> [DeliveredLine] {
        let backend = backend
        return try await oneStatement { db in
            try await db.raw("""
                SELECT token, push_type, event_id, logged_at FROM delivery_log
                WHERE app_id = \(bind: appId) AND installation_id = \(bind: installationId)
                    AND logged_at >= \(bind: from.milliseconds) AND logged_at <= \(bind: through.milliseconds)
                    AND outcome = \(stored: DeliveryOutcome.delivered) AND event_id IS NOT NULL AND push_type IN (\(stored: [PushType.widgets, .controls]))
                UNION ALL
                SELECT line.value ->> \(runLine: .token) AS token, run.push_type, run.event_id, run.logged_at
                FROM delivery_runs AS run CROSS JOIN \(backend.elements(of: "run.lines"))
                WHERE run.app_id = \(bind: appId) AND run.logged_at >= \(bind: from.milliseconds) AND run.logged_at <= \(bind: through.milliseconds)
                    AND run.outcome = \(stored: DeliveryOutcome.delivered) AND run.event_id IS NOT NULL AND run.push_type IN (\(stored: [PushType.widgets, .controls]))
                    AND run.first_installation\(backend.bytewise) <= \(bind: installationId)
                    AND run.last_installation\(backend.bytewise) >= \(bind: installationId)
                    AND line.value ->> \(runLine: .installation) = \(bind: installationId)
                ORDER BY logged_at DESC LIMIT \(bind: Self.reloadMatchLines)
                """).all().map { row in
                DeliveredLine(
                    token: try row.decode(column: "token", as: String.self), pushType: try row.decode(column: "push_type", as: String.self),
                    eventId: try row.decode(column: "event_id", as: String.self),
                    at: Date(milliseconds: try row.decode(column: "logged_at", as: Int64.self))
                )
            }
        }
    }

    /// Deletes the installation's receipts beyond its newest `keep` (by recording, then reload time; receipts tied
    /// with the last one kept go too). - Returns: how many were deleted.
    private static func dropOldestReloads(_ db: any SQLDatabase, appId: String, installationId: String, keep: Int) async throws -> Int {
        guard let boundary = try await db.raw("""
            SELECT recorded_at, reloaded_at FROM reloads WHERE app_id = \(bind: appId) AND installation_id = \(bind: installationId)
            ORDER BY recorded_at DESC, reloaded_at DESC LIMIT 1 OFFSET \(bind: max(0, keep))
            """).first()
        else {
            return 0
        }
        let recorded = try boundary.decode(column: "recorded_at", as: Int64.self)
        let reloaded = try boundary.decode(column: "reloaded_at", as: Int64.self)
        return try await db.raw("""
            DELETE FROM reloads WHERE app_id = \(bind: appId) AND installation_id = \(bind: installationId)
                AND (recorded_at < \(bind: recorded) OR (recorded_at = \(bind: recorded) AND reloaded_at <= \(bind: reloaded)))
            RETURNING recorded_at
            """).all().count
    }

    /// The installation's registered kinds, keyed `type|kind`: each control kind with its controls' push tokens, each
    /// widget kind with the widget token.
    private func registeredKinds(appId: String, installationId: String) async throws -> [String: Set<String>] {
        let rows = try await oneStatement { db in
            try await db.raw("""
                SELECT \(stored: PushType.controls) AS push_type, kind, push_token FROM controls WHERE app_id = \(bind: appId) AND installation_id = \(bind: installationId)
                UNION ALL
                SELECT \(stored: PushType.widgets) AS push_type, w.kind AS kind, t.push_token AS push_token
                FROM widgets AS w JOIN widget_tokens AS t ON t.app_id = w.app_id AND t.installation_id = w.installation_id
                WHERE w.app_id = \(bind: appId) AND w.installation_id = \(bind: installationId)
                """).all().map {
                (
                    key: try $0.decode(column: "push_type", as: String.self) + "|" + (try $0.decode(column: "kind", as: String.self)),
                    token: try $0.decode(column: "push_token", as: String.self)
                )
            }
        }
        return rows.reduce(into: [:]) { kinds, row in kinds[row.key, default: []].insert(row.token) }
    }

    /// Event-to-reload times read for the dashboard's p50/p95, at most: the period's newest matched receipts.
    static let reloadLatencyRows = 2_000

    func reloadStats(appId: String, since: Date) async throws -> [ReloadStats] {
        // Counts are aggregated in the database (`reloads_app` range); only a bounded sample of latencies is read.
        let counts = try await oneStatement { db in
            try await db.raw("""
                SELECT push_type, kind, COUNT(event_id) AS matched, COUNT(*) - COUNT(event_id) AS unmatched FROM reloads
                WHERE app_id = \(bind: appId) AND recorded_at >= \(bind: since.milliseconds)
                GROUP BY push_type, kind
                """).all().map { row in
                (
                    type: try row.decode(column: "push_type", as: String.self), kind: try row.decode(column: "kind", as: String.self),
                    matched: try row.decode(column: "matched", as: Int.self), unmatched: try row.decode(column: "unmatched", as: Int.self)
                )
            }
        }
        let latencies = try await oneStatement { db in
            try await db.raw("""
                SELECT push_type, kind, reloaded_at - event_created_at AS latency FROM reloads
                WHERE app_id = \(bind: appId) AND recorded_at >= \(bind: since.milliseconds) AND event_created_at IS NOT NULL
                ORDER BY recorded_at DESC LIMIT \(bind: Self.reloadLatencyRows)
                """).all().map { row in
                (
                    key: try row.decode(column: "push_type", as: String.self) + "|" + (try row.decode(column: "kind", as: String.self)),
                    seconds: Double(max(0, try row.decode(column: "latency", as: Int64.self))) / 1000
                )
            }
        }
        let delivered = try await deliveredPerKind(appId: appId, since: since)
        var stats: [String: ReloadStats] = [:]
        for (key, count) in delivered {
            stats[key.type.rawValue + "|" + key.kind] = ReloadStats(
                pushType: key.type, kind: key.kind, delivered: count, matched: 0, unmatched: 0, latencies: []
            )
        }
        for row in counts {
            guard let type = PushKind(rawValue: row.type) else { continue }
            let key = row.type + "|" + row.kind
            var entry = stats[key] ?? ReloadStats(pushType: type, kind: row.kind, delivered: 0, matched: 0, unmatched: 0, latencies: [])
            entry.matched = row.matched
            entry.unmatched = row.unmatched
            stats[key] = entry
        }
        for row in latencies { stats[row.key]?.latencies.append(row.seconds) }
        return stats.values.map { stat in
            var stat = stat
            stat.latencies.sort()
            return stat
        }.sorted { ($0.pushType.rawValue, $0.kind) < ($1.pushType.rawValue, $1.kind) }
    }

    /// Pushes delivered at or after `since` per type and kind: widget pushes once per kind the installation has
    /// registered now, control pushes by the kind of the control that holds the token. Lines of `delivery_log`
    /// and of packed runs alike.
    private func deliveredPerKind(appId: String, since: Date) async throws -> [(key: (type: PushKind, kind: String), count: Int)] {
        let backend = backend
        return try await oneStatement { db in
            try await db.raw("""
                WITH lines AS (
                    SELECT push_type, installation_id, token FROM delivery_log
                    WHERE app_id = \(bind: appId) AND logged_at >= \(bind: since.milliseconds) AND outcome = \(stored: DeliveryOutcome.delivered)
                        AND installation_id IS NOT NULL AND push_type IN (\(stored: [PushType.widgets, .controls]))
                    UNION ALL
                    SELECT run.push_type, line.value ->> \(runLine: .installation) AS installation_id, line.value ->> \(runLine: .token) AS token
                    FROM delivery_runs AS run CROSS JOIN \(backend.elements(of: "run.lines"))
                    WHERE run.app_id = \(bind: appId) AND run.logged_at >= \(bind: since.milliseconds) AND run.outcome = \(stored: DeliveryOutcome.delivered)
                        AND run.push_type IN (\(stored: [PushType.widgets, .controls])))
                SELECT \(stored: PushType.widgets) AS push_type, w.kind AS kind, COUNT(*) AS n
                FROM lines JOIN (SELECT DISTINCT installation_id, kind FROM widgets WHERE app_id = \(bind: appId)) AS w
                    ON w.installation_id = lines.installation_id
                WHERE lines.push_type = \(stored: PushType.widgets) GROUP BY w.kind
                UNION ALL
                SELECT \(stored: PushType.controls) AS push_type, c.kind AS kind, COUNT(*) AS n
                FROM lines JOIN controls AS c ON c.app_id = \(bind: appId) AND c.installation_id = lines.installation_id AND c.push_token = lines.token
                WHERE lines.push_type = \(stored: PushType.controls) GROUP BY c.kind
                """).all().compactMap { row in
                guard let type = PushKind(rawValue: try row.decode(column: "push_type", as: String.self)) else { return nil }
                return (key: (type: type, kind: try row.decode(column: "kind", as: String.self)), count: try row.decode(column: "n", as: Int.self))
            }
        }
    }

    /// Deletes the receipts recorded before `cutoff`: they are matched against the delivery log, so its prune by age
    /// takes them with it.
    static func deleteReloads(_ db: any SQLDatabase, recordedBefore cutoff: Date) async throws {
        try await db.raw("DELETE FROM reloads WHERE recorded_at < \(bind: cutoff.milliseconds)").run()
    }
}
