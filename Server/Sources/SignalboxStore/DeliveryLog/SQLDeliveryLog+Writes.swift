import Foundation
import SQLKit
import SignalboxModel

/// The delivery log's writes: with the push results (`complete`) or alone for direct pushes; and its prune by age
/// and count.
extension SQLDeliveryLog {
    func logDeliveries(_ entries: [DeliveryLogEntry]) async throws {
        guard writes, !entries.isEmpty else { return }
        let backend = backend
        try await transaction { db in try await Self.insertLog(db, backend, entries) }
    }

    /// The line of an attempt `complete` recorded, with the outcome it decided.
    static func logLine(_ completion: PushCompletion, outcome: DeliveryOutcome, now: Date) -> DeliveryLogEntry {
        let push = completion.push
        return DeliveryLogEntry(
            appId: push.appId, token: push.token, pushType: push.kind.pushType.rawValue, eventId: push.eventId,
            installationId: push.installationId, outcome: outcome, answer: completion.answer, attempt: push.attempts + 1, at: now
        )
    }

    /// Each run (`LogRun`) in pieces of up to 5,000 lines: a packed one as a row of `delivery_runs`, the others as
    /// rows of `delivery_log` from one JSON parameter (`JSONRows`). The values a run shares are bound once. `complete`
    /// calls this in its transaction.
    static func insertLog(_ db: any SQLDatabase, _ backend: SQLBackend, _ entries: [DeliveryLogEntry]) async throws {
        for run in LogRun.runs(of: entries) {
            let key = run.key
            for start in stride(from: 0, to: run.lines.count, by: 5_000) {
                let piece = run.lines[start..<min(start + 5_000, run.lines.count)]
                if run.packed, let event = key.eventId, let range = LogRun.installationRange(piece) {
                    try await db.raw("""
                        INSERT INTO delivery_runs (app_id, push_type, event_id, logged_at, outcome, status, reason, attempt,
                            first_installation, last_installation, line_count, lines)
                        VALUES (\(bind: key.appId), \(bind: key.pushType), \(bind: event), \(bind: key.at), \(bind: key.outcome.rawValue), \(bind: key.status),
                            \(bind: key.reason), \(bind: key.attempt), \(bind: range.first), \(bind: range.last), \(bind: piece.count), \(bind: lines(piece).text))
                        """).run()
                } else {
                    try await db.raw("""
                        INSERT INTO delivery_log (app_id, push_type, event_id, logged_at, outcome, status, reason, attempt, token, apns_id, installation_id)
                        SELECT \(bind: key.appId), \(bind: key.pushType), \(bind: key.eventId), \(bind: key.at), \(bind: key.outcome.rawValue), \(bind: key.status),
                            \(bind: key.reason), \(bind: key.attempt), c0, c1, c2
                        FROM (\(backend.select(lines(piece)))) AS line
                        """).run()
                }
            }
        }
    }

    /// What sets a run's lines apart, in `LogRun.LineField`'s order: token, apns-id, installation.
    private static func lines(_ entries: ArraySlice<DeliveryLogEntry>) -> JSONRows {
        var rows = JSONRows(columns: 3)
        for entry in entries {
            rows.startRow()
            rows.add(entry.token)
            rows.add(entry.answer.apnsId)
            rows.add(entry.installationId)
        }
        return rows
    }

    /// About how many lines a prune deletes per transaction.
    static let pruneTurn = 5_000

    func pruneDeliveryLog(before cutoff: Date, keepPerApp: Int) async throws -> Int {
        let apps = try await oneStatement { db in
            try await db.raw("SELECT app_id FROM apps").all().map { try $0.decode(column: "app_id", as: String.self) }
        }
        var removed = 0
        // Short transactions (the storage connection is shared): each deletes at most `pruneTurn` rows, the oldest
        // first, found by seeks in `delivery_log_app`; lines written meanwhile are newer than both limits.
        for app in apps {
            let oldest = try await countCutoff(app: app, keep: keepPerApp).map { max(cutoff.milliseconds, $0 + 1) } ?? cutoff.milliseconds
            while true {
                let turn = try await transaction { db in
                    // The turn takes the rows up to the `pruneTurn`-th old one's time (with the rows logged in the same
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
            removed += try await oneStatement { db in
                try await db.raw("DELETE FROM delivery_runs WHERE app_id = \(bind: app) AND logged_at < \(bind: oldest) RETURNING line_count").all()
                    .reduce(0) { $0 + (try $1.decode(column: "line_count", as: Int.self)) }
            }
        }
        // Reload receipts are matched against the log, so they go with it by age (not counted in `removed`).
        try await oneStatement { db in try await SQLReloads.deleteReloads(db, recordedBefore: cutoff) }
        return removed
    }

    /// The time at and before which the app's lines beyond its newest `keep` were logged, or nil (`LogCountCutoff`).
    private func countCutoff(app: String, keep: Int) async throws -> Int64? {
        let runs = try await oneStatement { db in
            try await db.raw("SELECT logged_at, line_count FROM delivery_runs WHERE app_id = \(bind: app) ORDER BY logged_at DESC").all().map {
                (at: try $0.decode(column: "logged_at", as: Int64.self), lines: try $0.decode(column: "line_count", as: Int.self))
            }
        }
        let cutoff = LogCountCutoff(
            runs: runs,
            rowsAtOrAfter: { at in
                try await self.oneStatement { db in
                    try await db.raw("SELECT COUNT(*) AS n FROM delivery_log WHERE app_id = \(bind: app) AND logged_at >= \(bind: at)")
                        .first()?.decode(column: "n", as: Int.self) ?? 0
                }
            },
            rowTime: { offset in
                try await self.oneStatement { db in
                    try await db.raw("""
                        SELECT logged_at FROM delivery_log WHERE app_id = \(bind: app) ORDER BY logged_at DESC LIMIT 1 OFFSET \(bind: offset)
                        """).first()?.decode(column: "logged_at", as: Int64.self)
                }
            }
        )
        return try await cutoff.time(keep: keep)
    }
}
