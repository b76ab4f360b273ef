import SQLKit
import SignalboxAPI
import SignalboxModel

/// A range of an event's installation ids, `cursor` exclusive to `upperBound` inclusive (none for the last).
struct FanOutRange: Sendable {
    let eventId: String
    let position: Int
    let cursor: String
    let upperBound: String?
}

/// Large fan-outs on PostgreSQL: the event is cut into ranges (`FanOutRanges`), and each step plans a page of the
/// first range no other step holds (`FOR UPDATE SKIP LOCKED`), so several instances plan one event at once. A
/// range's row lock lasts one step: a crashed instance's range is free again once its transaction is gone.
extension SQLDelivery {
    /// `events.fan_out_ranges` after an event's first page, planned by its cursor alone: the next step decides
    /// whether the rest is cut into ranges. 0 is one cursor for good, more is that many ranges.
    static let splitAfterFirstPage = -1

    /// Cuts the event's app's installation ids after `cursor` at quantiles into ranges, when the rest of the
    /// event's audience is large enough. - Returns: whether the event is now planned by ranges.
    static func split(_ db: any SQLDatabase, event: EventRecord, after cursor: String, batchSize: Int) async throws -> Bool {
        guard FanOutRanges.splittable(event.request.audience) else { return false }
        // The audience is counted up to the threshold only, so a small event (a small app, or a small channel of a
        // large one) costs a short index scan and is planned by one cursor.
        let threshold = FanOutRanges.minimumPages * batchSize
        let members: SQLQueryString = switch event.request.audience {
        case .channels(let channels):
            "SELECT 1 FROM installation_channels WHERE app_id = \(bind: event.appId) AND channel IN (\(binds: channels)) AND installation_id > \(bind: cursor)"
        default: "SELECT 1 FROM installations WHERE app_id = \(bind: event.appId) AND installation_id > \(bind: cursor)"
        }
        guard try await count(db, "SELECT count(*) AS n FROM (\(members) LIMIT \(bind: threshold)) AS q") >= threshold else { return false }
        let total = try await count(db, "SELECT count(*) AS n FROM installations WHERE app_id = \(bind: event.appId) AND installation_id > \(bind: cursor)")
        let ranges = FanOutRanges.count(installations: total, batchSize: batchSize)
        guard ranges > 1 else { return false }
        let bounds = try await db.raw("""
            SELECT installation_id FROM (
                SELECT installation_id, row_number() OVER (ORDER BY installation_id) AS n FROM installations
                WHERE app_id = \(bind: event.appId) AND installation_id > \(bind: cursor)
            ) AS q WHERE n % \(bind: FanOutRanges.length(installations: total, ranges: ranges, batchSize: batchSize)) = 0
            ORDER BY installation_id LIMIT \(bind: ranges - 1)
            """).all().map { try $0.decode(column: "installation_id", as: String.self) }
        let lowers = [cursor] + bounds
        let rows = lowers.indices.map { index -> SQLQueryString in
            let upper = index < bounds.count ? bounds[index] : nil
            return "(\(bind: event.id), \(bind: index), \(bind: event.appId), \(bind: lowers[index]), \(bind: upper), 0)"
        }
        try await db.raw("""
            INSERT INTO event_ranges (event_id, position, app_id, fan_out_cursor, upper_bound, done) VALUES \(rows.joined(separator: ", "))
            """).run()
        try await db.raw("""
            UPDATE events SET state = \(bind: EventState.fanningOut.rawValue), fan_out_ranges = \(bind: lowers.count) WHERE event_id = \(bind: event.id)
            """).run()
        return true
    }

    /// The first range still to plan that no other step holds, locked: read with the event's row (`plannableEvent`).
    static func freeRangeQuery(_ eventId: String) -> SQLQueryString {
        """
        SELECT position AS range_position, fan_out_cursor AS range_cursor, upper_bound AS range_upper_bound FROM event_ranges
        WHERE event_id = \(bind: eventId) AND done = 0 ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED
        """
    }

    /// The range `freeRangeQuery` locked, from the event's row; nil when none was free.
    static func freeRange(in row: any SQLRow, eventId: String) throws -> FanOutRange? {
        guard row.contains(column: "range_position"), try !row.decodeNil(column: "range_position") else { return nil }
        return FanOutRange(
            eventId: eventId, position: try row.decode(column: "range_position", as: Int.self),
            cursor: try row.decode(column: "range_cursor", as: String.self),
            upperBound: try row.decode(column: "range_upper_bound", as: String?.self)
        )
    }

    /// No range was free: other steps hold the rest (`busy`), or every range is planned and the event ends here.
    static func noFreeRange(_ db: any SQLDatabase, eventId: String) async throws -> FanOutStep {
        let open = try await count(db, "SELECT count(*) AS n FROM event_ranges WHERE event_id = \(bind: eventId) AND done = 0")
        guard open == 0 else { return FanOutStep(planned: 0, coalesced: 0, finished: false, busy: true) }
        try await db.raw("SELECT event_id FROM events WHERE event_id = \(bind: eventId) FOR UPDATE").run()
        return FanOutStep(planned: 0, coalesced: 0, finished: try await finishIfPlanned(db, eventId: eventId))
    }

    /// Records a planned page of `range` and adds its counts to the event. - Returns: whether the whole event is planned.
    static func advance(
        _ db: any SQLDatabase, _ range: FanOutRange, to last: String?, rangeFinished: Bool, matched: Int, coalesced: Int
    ) async throws -> Bool {
        // One round trip: PostgreSQL (the only backend with ranges) runs a data-modifying WITH exactly once.
        try await db.raw("""
            WITH moved AS (UPDATE event_ranges SET fan_out_cursor = \(bind: last ?? range.cursor), done = \(bind: rangeFinished ? 1 : 0)
                WHERE event_id = \(bind: range.eventId) AND position = \(bind: range.position))
            UPDATE events SET matched = matched + \(bind: matched), coalesced = coalesced + \(bind: coalesced)
            WHERE event_id = \(bind: range.eventId)
            """).run()
        return rangeFinished ? try await finishIfPlanned(db, eventId: range.eventId) : false
    }

    /// Marks the event `delivering` once no range is left. The caller holds the event's row lock, and this runs as a
    /// statement of its own: its snapshot then shows the ranges that steps holding the lock before finished.
    private static func finishIfPlanned(_ db: any SQLDatabase, eventId: String) async throws -> Bool {
        let finished = try await db.raw("""
            UPDATE events SET state = \(bind: EventState.delivering.rawValue)
            WHERE event_id = \(bind: eventId) AND state = \(bind: EventState.fanningOut.rawValue)
                AND NOT EXISTS (SELECT 1 FROM event_ranges WHERE event_id = \(bind: eventId) AND done = 0)
            RETURNING event_id
            """).first() != nil
        if finished { try await db.raw("DELETE FROM event_ranges WHERE event_id = \(bind: eventId)").run() }
        return finished
    }

    private static func count(_ db: any SQLDatabase, _ query: SQLQueryString) async throws -> Int {
        try await db.raw(query).first()?.decode(column: "n", as: Int.self) ?? 0
    }
}
