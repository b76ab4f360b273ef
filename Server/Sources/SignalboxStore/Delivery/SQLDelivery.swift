import Foundation
import SQLKit
import SignalboxAPI
import SignalboxModel

/// `DeliveryStore` in SQL: events and their fan-out (each step plans one page of installations and stores its pushes
/// atomically), the outbox, minimum intervals. Every step is one transaction.
struct SQLDelivery: DeliveryStore, SQLStore {
    let database: SQLDatabaseClient
    /// Whether push answers are written to the delivery log (`deliveryLog.maxLines` 0 turns it off).
    let writesDeliveryLog: Bool

    func createEvent(_ event: EventRecord) async throws {
        let backend = backend
        if backend == .postgres {
            // One statement commits on its own (a transaction would take three round trips more).
            return try await oneStatement { db in try await Self.insertEvent(event, on: db, backend) }
        }
        // Its client waits for the answer, and a quiet app's push for the event (issue 29): ahead of background work.
        try await transaction(urgent: true) { db in try await Self.insertEvent(event, on: db, backend) }
    }

    /// Inserts an accepted event (in one statement) and announces it to the other instances at commit.
    static func insertEvent(_ event: EventRecord, on db: any SQLDatabase, _ backend: SQLBackend) async throws {
        let target = String(decoding: try JSONEncoder().encode(event.request.target), as: UTF8.self)
        let audience = String(decoding: try JSONEncoder().encode(event.request.audience), as: UTF8.self)
        try await db.raw(backend.announcing(.eventAccepted, """
            INSERT INTO events (event_id, app_id, target, audience, state, fan_out_cursor, matched, coalesced, delivered,
                failed, pruned, created_at)
            VALUES (\(bind: event.id), \(bind: event.appId), \(bind: target), \(bind: audience),
                \(bind: EventState.accepted.rawValue), NULL, 0, 0, 0, 0, 0, \(bind: event.createdAt.milliseconds))
            """)).run()
    }

    func eventStatus(appId: String, id: String) async throws -> EventStatus? {
        try await oneStatement { db in
            guard let row = try await db.raw("SELECT * FROM events WHERE app_id = \(bind: appId) AND event_id = \(bind: id)").first() else {
                return nil
            }
            return EventStatus(
                state: try row.decode(stored: "state", as: EventState.self),
                matched: try row.decode(column: "matched", as: Int.self), coalesced: try row.decode(column: "coalesced", as: Int.self),
                delivered: try row.decode(column: "delivered", as: Int.self), failed: try row.decode(column: "failed", as: Int.self),
                pruned: try row.decode(column: "pruned", as: Int.self),
                reason: try row.decodeNil(column: "failure_reason") ? nil : try row.decode(column: "failure_reason", as: String.self)
            )
        }
    }

    func eventsToFanOut(limit: Int) async throws -> [QueuedEvent] {
        // Only ids and times: an event that cannot be decoded fails in its own step, not in this listing.
        try await oneStatement { db in
            try await db.raw("""
                SELECT event_id, app_id, created_at FROM (
                    SELECT event_id, app_id, created_at,
                        ROW_NUMBER() OVER (PARTITION BY app_id ORDER BY created_at, event_id) AS turn
                    FROM events WHERE state IN (\(stored: [EventState.accepted, .fanningOut]))) AS queued
                WHERE turn = 1 ORDER BY created_at, event_id LIMIT \(bind: limit)
                """).all().map { row in
                QueuedEvent(
                    id: try row.decode(column: "event_id", as: String.self), appId: try row.decode(column: "app_id", as: String.self),
                    createdAt: Date(milliseconds: try row.decode(column: "created_at", as: Int64.self))
                )
            }
        }
    }

    func failEvent(id: String, reason: String, now: Date) async throws {
        try await transaction { db in
            guard try await db.raw("""
                UPDATE events SET state = \(bind: EventState.failed.rawValue), failure_reason = \(bind: reason)
                WHERE event_id = \(bind: id) AND state IN (\(stored: [EventState.accepted, .fanningOut])) RETURNING event_id
                """).first() != nil else { return }
            try await db.raw("DELETE FROM event_ranges WHERE event_id = \(bind: id)").run()
            try await SQLWebhooks.recordFailedEvent(db, eventId: id, reason: reason, now: now)
        }
    }

    func purgeEvents(createdBefore cutoff: Date, limit: Int) async throws -> Int {
        try await oneStatement { db in
            try await db.raw("""
                DELETE FROM events WHERE event_id IN (
                    SELECT event_id FROM events WHERE created_at < \(bind: cutoff.milliseconds)
                        AND (state = \(stored: EventState.failed) OR (\(Self.eventIsDone)))
                    LIMIT \(bind: limit))
                RETURNING event_id
                """).all().count
        }
    }
}

/// Who claims the pushes a fan-out step hands off, and until when.
struct Claim: Sendable {
    let owner: String
    let leaseUntil: Int64
}

extension SQLDelivery {
    /// `EventStatus`'s "done" rule in SQL, the one place the backends state it: the fan-out finished (`delivering`)
    /// and every planned push has a final outcome. `done` itself is never stored.
    static var eventIsDone: SQLQueryString { "state = \(stored: EventState.delivering) AND delivered + failed + pruned >= matched" }
}
