import Foundation
import SQLKit
import SignalboxModel

/// `DashboardSessionStore` in SQL (`dashboard_sessions`), on the shared database client.
struct SQLDashboardSessions: DashboardSessionStore, SQLStore {
    let database: SQLDatabaseClient

    func startDashboardSession(_ session: DashboardSessionRecord, keepPerOwner: Int, now: Date) async throws {
        let backend = backend
        let (owner, keyHash) = Self.columns(session.owner)
        try await transaction { db in
            try await db.raw("DELETE FROM dashboard_sessions WHERE expires_at <= \(bind: now.milliseconds)").run()
            let surplus = try await db.raw("""
                SELECT secret_hash FROM dashboard_sessions WHERE owner = \(bind: owner)
                ORDER BY created_at DESC, secret_hash LIMIT 1000000 OFFSET \(bind: max(keepPerOwner - 1, 0))
                """).all().map { try $0.decode(column: "secret_hash", as: String.self) }
            if !surplus.isEmpty {
                try await db.raw("DELETE FROM dashboard_sessions WHERE \(backend.among("secret_hash", surplus))").run()
            }
            try await db.raw("""
                INSERT INTO dashboard_sessions (secret_hash, owner, server_key_hash, created_at, expires_at)
                VALUES (\(bind: session.secretHash), \(bind: owner), \(bind: keyHash), \(bind: session.createdAt.milliseconds),
                    \(bind: session.expiresAt.milliseconds))
                """).run()
        }
    }

    func dashboardSession(secretHash: String, now: Date) async throws -> DashboardSessionRecord? {
        try await oneStatement { db in
            guard let row = try await db.raw("""
                SELECT owner, server_key_hash, created_at, expires_at FROM dashboard_sessions
                WHERE secret_hash = \(bind: secretHash) AND expires_at > \(bind: now.milliseconds)
                """).first()
            else { return nil }
            let owner = try row.decode(column: "owner", as: String.self)
            let keyHash = try row.decode(column: "server_key_hash", as: String?.self)
            return DashboardSessionRecord(
                secretHash: secretHash, owner: Self.owner(owner, keyHash: keyHash),
                createdAt: Date(milliseconds: try row.decode(column: "created_at", as: Int64.self)),
                expiresAt: Date(milliseconds: try row.decode(column: "expires_at", as: Int64.self))
            )
        }
    }

    func endDashboardSession(secretHash: String) async throws {
        try await oneStatement { db in
            try await db.raw("DELETE FROM dashboard_sessions WHERE secret_hash = \(bind: secretHash)").run()
        }
    }

    /// The one mapping of an owner to its columns: the admin is the empty owner (no app id is empty).
    private static func columns(_ owner: DashboardSessionRecord.Owner) -> (owner: String, keyHash: String?) {
        switch owner {
        case .admin: ("", nil)
        case .app(let id, let serverKeyHash): (id, serverKeyHash)
        }
    }

    private static func owner(_ owner: String, keyHash: String?) -> DashboardSessionRecord.Owner {
        if owner.isEmpty { return .admin }
        // A row without its key hash matches no current key: the session is refused, never widened.
        return .app(id: owner, serverKeyHash: keyHash ?? "")
    }
}
