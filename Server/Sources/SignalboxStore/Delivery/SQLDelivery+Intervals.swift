import Foundation
import SQLKit
import SignalboxModel

/// Per-app minimum intervals between pushes to one token (off by default): a push planned too soon after the
/// last one to its token waits in the outbox, where later events are absorbed into it.
extension SQLDelivery {
    func pushIntervals(appId: String) async throws -> [PushKind: Int] {
        try await oneStatement { db in try await Self.intervals(db, appId: appId) }
    }

    func setPushIntervals(appId: String, _ intervals: [PushKind: Int]) async throws {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: appId)").first() != nil else {
                throw StoreError(.notFound, "no app \(appId)")
            }
            try await db.raw("DELETE FROM push_intervals WHERE app_id = \(bind: appId)").run()
            for (kind, seconds) in intervals where seconds > 0 {
                try await db.raw("INSERT INTO push_intervals (app_id, kind, seconds) VALUES (\(bind: appId), \(bind: kind.rawValue), \(bind: seconds))").run()
            }
        }
    }

    static func intervals(_ db: any SQLDatabase, appId: String) async throws -> [PushKind: Int] {
        guard let row = try await db.raw("SELECT \(intervalsList("\(bind: appId)")) AS intervals").first() else { return [:] }
        return try intervals(in: row)
    }

    /// An app's minimum intervals as one column, `kind=seconds` pairs (`intervals(in:)`): a fan-out page reads them
    /// with the event's row, one round trip fewer.
    static func intervalsList(_ appId: SQLQueryString) -> SQLQueryString {
        "(SELECT string_agg(kind || '=' || seconds, ',') FROM push_intervals p WHERE p.app_id = \(appId))"
    }

    /// The app's minimum intervals from a row's `intervals` column (`intervalsList`).
    static func intervals(in row: any SQLRow) throws -> [PushKind: Int] {
        guard let listed = try row.decode(column: "intervals", as: String?.self) else { return [:] }
        var intervals: [PushKind: Int] = [:]
        for pair in listed.split(separator: ",") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let kind = PushKind(rawValue: String(parts[0])), let seconds = Int(parts[1]) { intervals[kind] = seconds }
        }
        return intervals
    }

    /// When each of these pushes' tokens last got a push of `kind`, for the tokens that did, if `kind` has an interval.
    static func lastSent(
        _ db: any SQLDatabase, appId: String, kind: PushKind, of pushes: ArraySlice<PlannedPush>, interval: Int
    ) async throws -> [String: Int64] {
        guard interval > 0, !pushes.isEmpty else { return [:] }
        let tokens = pushes.map(\.token)
        var lastSent: [String: Int64] = [:]
        for row in try await db.raw("""
            SELECT token, sent_at FROM token_last_sent
            WHERE app_id = \(bind: appId) AND kind = \(bind: kind.rawValue) AND token IN (\(binds: tokens))
            """).all() {
            lastSent[try row.decode(column: "token", as: String.self)] = try row.decode(column: "sent_at", as: Int64.self)
        }
        return lastSent
    }

    /// What a batch of deliveries may still have to write, asked in one round trip: the apps and kinds with a minimum
    /// interval (`app_id` NUL `kind`), and whether any token has strikes (`SQLRegistry.clearStrikes`).
    static func afterDelivery(_ db: any SQLDatabase) async throws -> (limited: Set<String>, strikes: Bool) {
        var limited: Set<String> = []
        var strikes = false
        for row in try await db.raw("""
            SELECT app_id, kind FROM push_intervals WHERE seconds > 0
            UNION ALL SELECT * FROM (SELECT NULL AS app_id, NULL AS kind FROM suspect_tokens LIMIT 1) AS struck
            """).all() {
            guard let app = try row.decode(column: "app_id", as: String?.self) else {
                strikes = true
                continue
            }
            limited.insert(app + "\u{0}" + (try row.decode(column: "kind", as: String.self)))
        }
        return (limited, strikes)
    }

    /// Remembers when delivered pushes went out, for the apps and kinds that have a minimum interval (`afterDelivery`).
    static func recordSent(_ db: any SQLDatabase, _ delivered: [OutboxPush], limited: Set<String>, now: Date) async throws {
        guard !limited.isEmpty else { return }
        for push in delivered where limited.contains(push.appId + "\u{0}" + push.kind.rawValue) {
            try await db.raw("""
                INSERT INTO token_last_sent (app_id, token, kind, sent_at)
                VALUES (\(bind: push.appId), \(bind: push.token), \(bind: push.kind.rawValue), \(bind: now.milliseconds))
                ON CONFLICT (app_id, token, kind) DO UPDATE SET sent_at = excluded.sent_at
                """).run()
        }
    }
}
