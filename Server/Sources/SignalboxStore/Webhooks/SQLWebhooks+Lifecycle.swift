import Foundation
import SQLKit
import SignalboxAPI
import SignalboxModel

/// Lifecycle events: stored for replay and queued for the app's endpoints inside the transaction of the fact they
/// report (a pruned or moved token, a finished event), so a fact and its webhook commit together.
extension SQLWebhooks {
    func recordLifecycleEvents(_ events: [LifecycleEvent]) async throws {
        guard !events.isEmpty else { return }
        try await transaction { db in try await Self.record(db, events) }
    }

    /// Stores `events` and queues a delivery of each to every endpoint of its app that takes its kind: two
    /// statements per event, nothing to read back.
    static func record(_ db: any SQLDatabase, _ events: [LifecycleEvent]) async throws {
        for event in events {
            try await db.raw("""
                INSERT INTO lifecycle_events (event_id, app_id, event_type, body, occurred_at)
                VALUES (\(bind: event.id), \(bind: event.appId), \(bind: event.kind.rawValue), \(bind: event.body),
                    \(bind: event.occurredAt.milliseconds))
                """).run()
            try await db.raw("""
                INSERT INTO webhook_deliveries (delivery_id, endpoint_id, event_id, app_id, attempts, next_attempt_at)
                SELECT endpoint_id || ':' || \(bind: event.id), endpoint_id, \(bind: event.id), app_id, 0, \(bind: event.occurredAt.milliseconds)
                FROM webhook_endpoints WHERE app_id = \(bind: event.appId)
                    AND (event_types = '' OR event_types LIKE \(bind: "%,\(event.kind.rawValue),%"))
                """).run()
        }
    }

    /// `event.done` from an event's `countColumns` and `done` flag as a credit left them, if that credit of `added`
    /// outcomes finished it (so the instance whose credit finished the event reports it, once).
    static func recordIfFinished(_ db: any SQLDatabase, counts row: any SQLRow, added: Int, now: Date) async throws {
        guard try row.decode(column: "done", as: Int.self) == 1 else { return }
        let counts = try EventCounts(row)
        guard counts.settled - added < counts.matched else { return }
        try await record(db, [counts.lifecycleEvent(.eventDone, at: now)])
    }

    /// `event.done` when a fan-out finishes with every push already answered (or none planned).
    static func recordIfSettled(_ db: any SQLDatabase, eventId: String, now: Date) async throws {
        guard let row = try await db.raw("""
            SELECT \(unsafeRaw: countColumns) FROM events WHERE event_id = \(bind: eventId) AND \(SQLDelivery.eventIsDone)
            """).first() else { return }
        try await recordDone(db, counts: row, now: now)
    }

    /// `event.done` from a row of the event's `countColumns`, read as it finished.
    static func recordDone(_ db: any SQLDatabase, counts row: any SQLRow, now: Date) async throws {
        try await record(db, [try EventCounts(row).lifecycleEvent(.eventDone, at: now)])
    }

    /// The columns of `events` a lifecycle event reports.
    static let countColumns = "event_id, app_id, matched, coalesced, delivered, failed, pruned"

    /// `event.failed` with the reason, when the event was failed just now.
    static func recordFailedEvent(_ db: any SQLDatabase, eventId: String, reason: String, now: Date) async throws {
        guard let row = try await db.raw("""
            SELECT \(unsafeRaw: countColumns) FROM events WHERE event_id = \(bind: eventId)
            """).first() else { return }
        try await record(db, [try EventCounts(row).lifecycleEvent(.eventFailed, at: now, reason: reason)])
    }

    /// `token.pruned`, with the time APNs gave for the token's end (410) when there is one.
    static func recordPrunedToken(_ db: any SQLDatabase, appId: String, token: String, reason: String, apnsTimestamp: Date?, now: Date) async throws {
        var data: [String: JSONValue] = ["token": .string(token), "reason": .string(reason)]
        if let apnsTimestamp { data["apnsTimestamp"] = .string(SignalboxJSON.format(apnsTimestamp)) }
        try await record(db, [.make(appId: appId, kind: .tokenPruned, at: now, data: data)])
    }

    /// `token.moved` for each installation that gave `token` up to `installationId`.
    static func recordMovedToken(
        _ db: any SQLDatabase, appId: String, token: String, kind: String, from previous: [String], to installationId: String, now: Date
    ) async throws {
        try await record(db, previous.sorted().map { from in
            .make(appId: appId, kind: .tokenMoved, at: now, data: [
                "token": .string(token), "pushType": .string(kind), "fromInstallationId": .string(from),
                "toInstallationId": .string(installationId),
            ])
        })
    }
}

/// An event's counters, as its `event.done` / `event.failed` body carries them.
private struct EventCounts {
    let eventId: String
    let appId: String
    let matched, coalesced, delivered, failed, pruned: Int
    var settled: Int { delivered + failed + pruned }

    init(_ row: any SQLRow) throws {
        eventId = try row.decode(column: "event_id", as: String.self)
        appId = try row.decode(column: "app_id", as: String.self)
        matched = try row.decode(column: "matched", as: Int.self)
        coalesced = try row.decode(column: "coalesced", as: Int.self)
        delivered = try row.decode(column: "delivered", as: Int.self)
        failed = try row.decode(column: "failed", as: Int.self)
        pruned = try row.decode(column: "pruned", as: Int.self)
    }

    func lifecycleEvent(_ kind: LifecycleEvent.Kind, at date: Date, reason: String? = nil) -> LifecycleEvent {
        var data: [String: JSONValue] = [
            "eventId": .string(eventId), "matched": .number(Double(matched)), "coalesced": .number(Double(coalesced)),
            "delivered": .number(Double(delivered)), "failed": .number(Double(failed)), "pruned": .number(Double(pruned)),
        ]
        if let reason { data["reason"] = .string(reason) }
        return .make(appId: appId, kind: kind, at: date, data: data)
    }
}
