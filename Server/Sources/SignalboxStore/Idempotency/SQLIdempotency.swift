import Foundation
import SQLKit
import SignalboxModel

/// Idempotency keys in `idempotency_keys`: one row per (app, key), `status` NULL while its request is running.
/// The row is inserted first with `ON CONFLICT DO NOTHING`, so of two racing requests one inserts and the other
/// waits for it (PostgreSQL) or runs after it (SQLite) and then reads the winner's row.
struct SQLIdempotency: IdempotencyStore, SQLStore {
    let database: SQLDatabaseClient

    func createEvent(_ event: EventRecord, idempotency: IdempotentRequest, answer: StoredAnswer) async throws -> IdempotencyClaim {
        try await transaction(urgent: true) { db in
            let claim = try await self.claim(idempotency, answer: answer, on: db)
            if claim == .claimed { try await SQLDelivery.insertEvent(event, on: db, self.backend) }
            return claim
        }
    }

    func claimIdempotencyKey(_ request: IdempotentRequest) async throws -> IdempotencyClaim {
        try await transaction { db in try await self.claim(request, answer: nil, on: db) }
    }

    func recordIdempotentAnswer(_ request: IdempotentRequest, _ answer: StoredAnswer) async throws {
        try await oneStatement { db in
            try await db.raw("""
                UPDATE idempotency_keys SET status = \(bind: answer.status), answer = \(bind: answer.body)
                WHERE \(Self.keyRow(request)) AND fingerprint = \(bind: request.fingerprint) AND status IS NULL
                """).run()
        }
    }

    func releaseIdempotencyKey(_ request: IdempotentRequest) async throws {
        try await oneStatement { db in
            try await db.raw("""
                DELETE FROM idempotency_keys WHERE \(Self.keyRow(request)) AND fingerprint = \(bind: request.fingerprint) AND status IS NULL
                """).run()
        }
    }

    func pruneIdempotencyKeys(before cutoff: Date) async throws -> Int {
        // In turns, so a day's worth of keys never holds one long transaction.
        var removed = 0
        while true {
            let turn = try await oneStatement { db in
                try await db.raw("""
                    DELETE FROM idempotency_keys WHERE created_at < \(bind: cutoff.milliseconds) AND idempotency_key IN (
                        SELECT idempotency_key FROM idempotency_keys WHERE created_at < \(bind: cutoff.milliseconds) LIMIT 5000)
                    RETURNING app_id
                    """).all().count
            }
            removed += turn
            if turn < 5000 { return removed }
        }
    }

    /// Claims the key in `db`'s transaction; `answer` is stored with it at once (an event's answer is known
    /// before its transaction commits), or later by `recordIdempotentAnswer`.
    private func claim(_ request: IdempotentRequest, answer: StoredAnswer?, on db: any SQLDatabase) async throws -> IdempotencyClaim {
        let at = request.at.milliseconds
        let inserted = try await db.raw("""
            INSERT INTO idempotency_keys (app_id, idempotency_key, fingerprint, status, answer, created_at)
            VALUES (\(bind: request.appId), \(bind: request.key), \(bind: request.fingerprint), \(bind: answer?.status),
                \(bind: answer?.body), \(bind: at))
            ON CONFLICT DO NOTHING RETURNING app_id
            """).first()
        if inserted != nil { return .claimed }
        guard let row = try await db.raw("""
            SELECT fingerprint, status, answer, created_at FROM idempotency_keys WHERE \(Self.keyRow(request))\(backend.forUpdate)
            """).first()
        else {
            throw StoreError(.unavailable, "an idempotency key vanished while it was claimed; retry")
        }
        let createdAt = Date(milliseconds: try row.decode(column: "created_at", as: Int64.self))
        let age = request.at.timeIntervalSince(createdAt)
        let fingerprint = try row.decode(column: "fingerprint", as: String.self)
        let status = try row.decode(column: "status", as: Int?.self)
        let expired = age >= IdempotentRequest.window.seconds
        let abandoned = status == nil && age >= IdempotentRequest.abandonedAfter.seconds
        if !expired {
            guard fingerprint == request.fingerprint else { return .mismatch }
            if let status { return .replay(StoredAnswer(status: status, body: try row.decode(column: "answer", as: String.self))) }
            if !abandoned { return .inProgress }
        }
        // A key past its window (not yet pruned) or a claim whose process died is this request's now.
        try await db.raw("""
            UPDATE idempotency_keys SET fingerprint = \(bind: request.fingerprint), status = \(bind: answer?.status),
                answer = \(bind: answer?.body), created_at = \(bind: at)
            WHERE \(Self.keyRow(request))
            """).run()
        return .claimed
    }

    private static func keyRow(_ request: IdempotentRequest) -> SQLQueryString {
        "app_id = \(bind: request.appId) AND idempotency_key = \(bind: request.key)"
    }
}
