import Foundation
import SQLKit
import SignalboxModel

/// Webhook endpoints, lifecycle events for replay, and the delivery queue (claimed with an owner and a lease).
struct SQLWebhooks: WebhookStore, SQLStore {
    let database: SQLDatabaseClient

    func createWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws {
        try await transaction { db in
            guard try await db.raw("SELECT app_id FROM apps WHERE app_id = \(bind: endpoint.appId)").first() != nil else {
                throw StoreError(.notFound, "no app \(endpoint.appId)")
            }
            try await db.raw("""
                INSERT INTO webhook_endpoints (endpoint_id, app_id, url, event_types, sealed_secret, previous_sealed_secret,
                    previous_secret_expires_at, created_at)
                VALUES (\(bind: endpoint.id), \(bind: endpoint.appId), \(bind: endpoint.url), \(bind: Self.eventTypes(endpoint.kinds)),
                    \(bind: Data(endpoint.sealedSecret).base64EncodedString()),
                    \(bind: endpoint.previousSealedSecret.map { Data($0).base64EncodedString() }),
                    \(bind: endpoint.previousSecretExpiresAt?.milliseconds), \(bind: endpoint.createdAt.milliseconds))
                """).run()
        }
    }

    func webhookEndpoints(appId: String) async throws -> [WebhookEndpointStatus] {
        try await oneStatement { db in
            try await db.raw("""
                SELECT e.*, (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id) AS backlog
                FROM webhook_endpoints e WHERE e.app_id = \(bind: appId) ORDER BY e.created_at, e.endpoint_id
                """).all()
        }.map(Self.status)
    }

    func webhookEndpoint(appId: String, id: String) async throws -> WebhookEndpointStatus? {
        try await oneStatement { db in
            try await db.raw("""
                SELECT e.*, (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id) AS backlog
                FROM webhook_endpoints e WHERE e.app_id = \(bind: appId) AND e.endpoint_id = \(bind: id)
                """).first()
        }.map(Self.status)
    }

    func deleteWebhookEndpoint(appId: String, id: String) async throws -> Bool {
        try await transaction { db in
            guard try await db.raw("""
                DELETE FROM webhook_endpoints WHERE app_id = \(bind: appId) AND endpoint_id = \(bind: id) RETURNING endpoint_id
                """).first() != nil else { return false }
            try await db.raw("DELETE FROM webhook_deliveries WHERE endpoint_id = \(bind: id)").run()
            return true
        }
    }

    func rotateWebhookSecret(appId: String, id: String, sealed: [UInt8], previous: [UInt8]?, previousExpiresAt: Date?) async throws -> Bool {
        try await oneStatement { db in
            try await db.raw("""
                UPDATE webhook_endpoints SET sealed_secret = \(bind: Data(sealed).base64EncodedString()),
                    previous_sealed_secret = \(bind: previous.map { Data($0).base64EncodedString() }),
                    previous_secret_expires_at = \(bind: previousExpiresAt?.milliseconds)
                WHERE app_id = \(bind: appId) AND endpoint_id = \(bind: id) RETURNING endpoint_id
                """).first() != nil
        }
    }

    func lifecycleEvents(appId: String, after: String?, limit: Int) async throws -> [LifecycleEvent] {
        try await oneStatement { db in
            let cursor: SQLQueryString = after.map { " AND event_id > \(bind: $0)" } ?? ""
            return try await db.raw("""
                SELECT * FROM lifecycle_events WHERE app_id = \(bind: appId)\(cursor) ORDER BY event_id LIMIT \(bind: limit)
                """).all()
        }.map(Self.event)
    }

    func purgeLifecycleEvents(before cutoff: Date, limit: Int) async throws -> Int {
        try await oneStatement { db in
            try await db.raw("""
                DELETE FROM lifecycle_events WHERE event_id IN (
                    SELECT event_id FROM lifecycle_events l WHERE occurred_at < \(bind: cutoff.milliseconds)
                        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = l.event_id)
                    LIMIT \(bind: limit))
                RETURNING event_id
                """).all().count
        }
    }

    func claimWebhookDeliveries(now: Date, limit: Int, lease: Duration) async throws -> [WebhookDelivery] {
        let owner = database.owner
        let backend = backend
        return try await transaction { db in
            // A claim moves the delivery's due time to its lease's end: one held by a stopped instance is due again
            // then, and "due" is one index range. On PostgreSQL rows another instance is claiming are skipped.
            let leaseUntil = (now + lease.seconds).milliseconds
            let claimed = try await db.raw("""
                UPDATE webhook_deliveries SET claimed_by = \(bind: owner), lease_until = \(bind: leaseUntil), next_attempt_at = \(bind: leaseUntil)
                WHERE delivery_id IN (
                    SELECT delivery_id FROM webhook_deliveries WHERE next_attempt_at <= \(bind: now.milliseconds)
                    ORDER BY next_attempt_at LIMIT \(bind: limit)\(backend.skipLocked))
                RETURNING delivery_id
                """).all().map { try $0.decode(column: "delivery_id", as: String.self) }
            guard !claimed.isEmpty else { return [] }
            return try await db.raw("""
                SELECT d.delivery_id, d.attempts, d.next_attempt_at, e.*, l.event_id AS lifecycle_event_id, l.event_type, l.body, l.occurred_at
                FROM webhook_deliveries d
                JOIN webhook_endpoints e ON e.endpoint_id = d.endpoint_id
                JOIN lifecycle_events l ON l.event_id = d.event_id
                WHERE \(backend.among("d.delivery_id", claimed)) ORDER BY d.next_attempt_at, d.delivery_id
                """).all().map { row in
                WebhookDelivery(
                    id: try row.decode(column: "delivery_id", as: String.self), endpoint: try Self.endpoint(row),
                    event: try Self.event(row, idColumn: "lifecycle_event_id"), attempts: try row.decode(column: "attempts", as: Int.self)
                )
            }
        }
    }

    @discardableResult
    func completeWebhookDelivery(id: String, endpointId: String, result: WebhookAttemptResult, now: Date) async throws -> Bool {
        let owner = database.owner
        return try await transaction { db in
            let held: SQLQueryString = "delivery_id = \(bind: id) AND claimed_by = \(bind: owner)"
            switch result {
            case .delivered:
                guard try await db.raw("DELETE FROM webhook_deliveries WHERE \(held) RETURNING delivery_id").first() != nil else { return false }
                try await db.raw("""
                    UPDATE webhook_endpoints SET last_success_at = \(bind: now.milliseconds) WHERE endpoint_id = \(bind: endpointId)
                    """).run()
            case .retry(let at, let error):
                guard try await db.raw("""
                    UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = \(bind: at.milliseconds),
                        claimed_by = NULL, lease_until = NULL
                    WHERE \(held) RETURNING delivery_id
                    """).first() != nil else { return false }
                try await db.raw("""
                    UPDATE webhook_endpoints SET last_error = \(bind: error), last_error_at = \(bind: now.milliseconds)
                    WHERE endpoint_id = \(bind: endpointId)
                    """).run()
            }
            return true
        }
    }

    @discardableResult
    func releaseWebhookClaims(now: Date) async throws -> Int {
        // A shared database's claims end with their leases (their due time); SQLite's other owners are gone.
        guard backend == .sqlite else { return 0 }
        let owner = database.owner
        return try await oneStatement { db in
            try await db.raw("""
                UPDATE webhook_deliveries SET next_attempt_at = \(bind: now.milliseconds), claimed_by = NULL, lease_until = NULL
                WHERE claimed_by IS NOT NULL AND claimed_by <> \(bind: owner) RETURNING delivery_id
                """).all().count
        }
    }

    func nextWebhookDueDate() async throws -> Date? {
        try await oneStatement { db in
            guard let row = try await db.raw("SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries").first(),
                  try !row.decodeNil(column: "due") else { return nil }
            return Date(milliseconds: try row.decode(column: "due", as: Int64.self))
        }
    }

    /// The kinds as stored: between commas, so one is found with `LIKE '%,kind,%'`; empty for every kind.
    private static func eventTypes(_ kinds: [LifecycleEvent.Kind]) -> String {
        kinds.isEmpty ? "" : "," + kinds.map(\.rawValue).joined(separator: ",") + ","
    }

    private static func sealed(_ text: String) -> [UInt8] { Array(Data(base64Encoded: text) ?? Data()) }

    private static func endpoint(_ row: any SQLRow) throws -> WebhookEndpoint {
        WebhookEndpoint(
            id: try row.decode(column: "endpoint_id", as: String.self), appId: try row.decode(column: "app_id", as: String.self),
            url: try row.decode(column: "url", as: String.self),
            kinds: try row.decode(column: "event_types", as: String.self).split(separator: ",").compactMap { LifecycleEvent.Kind(rawValue: String($0)) },
            sealedSecret: sealed(try row.decode(column: "sealed_secret", as: String.self)),
            previousSealedSecret: try row.decode(column: "previous_sealed_secret", as: String?.self).map(sealed),
            previousSecretExpiresAt: try row.decode(column: "previous_secret_expires_at", as: Int64?.self).map(Date.init(milliseconds:)),
            createdAt: Date(milliseconds: try row.decode(column: "created_at", as: Int64.self))
        )
    }

    private static func status(_ row: any SQLRow) throws -> WebhookEndpointStatus {
        WebhookEndpointStatus(
            endpoint: try endpoint(row),
            lastSuccessAt: try row.decode(column: "last_success_at", as: Int64?.self).map(Date.init(milliseconds:)),
            lastError: try row.decode(column: "last_error", as: String?.self),
            lastErrorAt: try row.decode(column: "last_error_at", as: Int64?.self).map(Date.init(milliseconds:)),
            backlog: try row.decode(column: "backlog", as: Int.self)
        )
    }

    private static func event(_ row: any SQLRow) throws -> LifecycleEvent { try event(row, idColumn: "event_id") }

    private static func event(_ row: any SQLRow, idColumn: String) throws -> LifecycleEvent {
        LifecycleEvent(
            id: try row.decode(column: idColumn, as: String.self), appId: try row.decode(column: "app_id", as: String.self),
            kind: try row.decode(stored: "event_type", as: LifecycleEvent.Kind.self),
            occurredAt: Date(milliseconds: try row.decode(column: "occurred_at", as: Int64.self)), body: try row.decode(column: "body", as: String.self)
        )
    }
}
