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
        var intervals: [PushKind: Int] = [:]
        for row in try await db.raw("SELECT kind, seconds FROM push_intervals WHERE app_id = \(bind: appId)").all() {
            if let kind = PushKind(rawValue: try row.decode(column: "kind", as: String.self)) {
                intervals[kind] = try row.decode(column: "seconds", as: Int.self)
            }
        }
        return intervals
    }

    /// When each token last got a push of `kind`, for the tokens that did, if `kind` has an interval.
    static func lastSent(
        _ db: any SQLDatabase, appId: String, kind: PushKind, tokens: [String], interval: Int
    ) async throws -> [String: Int64] {
        guard interval > 0, !tokens.isEmpty else { return [:] }
        var lastSent: [String: Int64] = [:]
        for row in try await db.raw("""
            SELECT token, sent_at FROM token_last_sent
            WHERE app_id = \(bind: appId) AND kind = \(bind: kind.rawValue) AND token IN (\(binds: tokens))
            """).all() {
            lastSent[try row.decode(column: "token", as: String.self)] = try row.decode(column: "sent_at", as: Int64.self)
        }
        return lastSent
    }

    /// Remembers when delivered pushes went out, for apps and kinds that have a minimum interval.
    static func recordSent(_ db: any SQLDatabase, _ delivered: [OutboxPush], now: Date) async throws {
        guard !delivered.isEmpty else { return }
        let limited = Set(try await db.raw("SELECT app_id, kind FROM push_intervals WHERE seconds > 0").all().map {
            try $0.decode(column: "app_id", as: String.self) + "\u{0}" + $0.decode(column: "kind", as: String.self)
        })
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
