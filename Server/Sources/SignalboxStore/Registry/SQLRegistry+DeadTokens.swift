import Foundation
import SQLKit
import SignalboxModel

/// Removing the tokens APNs reports dead, in the transaction of `complete` that records the answer (`TokenPruning`).
extension SQLRegistry {
    /// 410: removes the token unless a registration renewed it at or after `since` (`TokenPruning`).
    static func pruneIfRegisteredBefore(_ db: any SQLDatabase, appId: String, token: String, since: Date?) async throws -> Bool {
        var renewed = false
        if let since { renewed = try await holds(db, appId: appId, token: token, seenSince: since) }
        guard TokenPruning.removesUnregistered(since: since, renewedSince: renewed) else { return false }
        return try await deleteToken(db, appId: appId, token: token)
    }

    /// `BadDeviceToken` / `DeviceTokenNotForTopic`: counts a strike; removes the token when `TokenPruning` says so.
    static func strike(_ db: any SQLDatabase, appId: String, token: String) async throws -> Bool {
        let strikes = try await db.raw("""
            INSERT INTO suspect_tokens (app_id, token, strikes) VALUES (\(bind: appId), \(bind: token), 1)
            ON CONFLICT (app_id, token) DO UPDATE SET strikes = suspect_tokens.strikes + 1
            RETURNING strikes
            """).first()?.decode(column: "strikes", as: Int.self) ?? 0
        guard TokenPruning.removes(afterStrikes: strikes) else { return false }
        try await db.raw("DELETE FROM suspect_tokens WHERE app_id = \(bind: appId) AND token = \(bind: token)").run()
        return try await deleteToken(db, appId: appId, token: token)
    }

    /// A delivery proves the token good: its strikes so far no longer count (`TokenPruning`: strikes in a row).
    /// Strikes are rare, so a batch calls this only when some token has one (`SQLDelivery.afterDelivery`).
    static func clearStrikes(_ db: any SQLDatabase, _ backend: SQLBackend, _ delivered: [OutboxPush]) async throws {
        for (appId, pushes) in Dictionary(grouping: delivered, by: \.appId) {
            for chunk in pushes.map(\.token).chunked(1_000) {
                try await db.raw("DELETE FROM suspect_tokens WHERE app_id = \(bind: appId) AND \(backend.among("token", Array(chunk)))").run()
            }
        }
    }

    /// The tables whose rows hold a push token (with `token_seen_at`).
    private static let tokenTables = ["widget_tokens", "controls", "file_provider_tokens"]

    /// Whether a registration holds the token (one renewed at or after `seenSince`, when given).
    private static func holds(_ db: any SQLDatabase, appId: String, token: String, seenSince: Date? = nil) async throws -> Bool {
        let seen: SQLQueryString = seenSince.map { " AND token_seen_at >= \(bind: $0.milliseconds)" } ?? ""
        let selects = tokenTables.map { table -> SQLQueryString in
            "SELECT 1 AS held FROM \(ident: table) WHERE app_id = \(bind: appId) AND push_token = \(bind: token)\(seen)"
        }
        return try await db.raw(selects.joined(separator: " UNION ")).first() != nil
    }

    /// Removes the token from every registration that holds it. - Returns: whether any held it.
    private static func deleteToken(_ db: any SQLDatabase, appId: String, token: String) async throws -> Bool {
        let holders: SQLQueryString = "app_id = \(bind: appId) AND push_token = \(bind: token)"
        let held = try await holds(db, appId: appId, token: token)
        for (table, owner) in [("widgets", "widget_tokens"), ("file_provider_domains", "file_provider_tokens"), ("enumerators", "file_provider_tokens")] {
            try await db.raw("""
                DELETE FROM \(ident: table) WHERE app_id = \(bind: appId)
                    AND installation_id IN (SELECT installation_id FROM \(ident: owner) WHERE \(holders))
                """).run()
        }
        for table in tokenTables {
            try await db.raw("DELETE FROM \(ident: table) WHERE \(holders)").run()
        }
        return held
    }
}
