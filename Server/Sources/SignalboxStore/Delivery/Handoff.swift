import Foundation
import SQLKit
import SignalboxModel

/// The pushes one fan-out page hands off to its own instance's dispatcher, stored as one `handoffs` row instead of an
/// outbox row each: the page's transaction writes one row, and results mark their pushes settled in it. A push in a
/// handoff has the id `<handoff id>.<index>`. Once the claim's owner is gone (`release`), the handoff's unsettled
/// pushes become pending outbox rows, so a crash loses none of them.
struct Handoff {
    let id = PushIds.next()
    private var count = 0
    /// installation id, token, environment, payload.
    private var pushes = JSONRows(columns: 4)

    /// Adds a push. - Returns: its id.
    mutating func append(_ push: PlannedPush) -> String {
        pushes.startRow()
        pushes.add(push.installationId)
        pushes.add(push.token)
        pushes.add(push.environment.rawValue)
        pushes.add(push.payload)
        count += 1
        return id + "." + String(count - 1)
    }

    func insert(_ db: any SQLDatabase, _ origin: OutboxRows.Origin, claim: Claim) async throws {
        guard count > 0 else { return }
        try await db.raw("""
            INSERT INTO handoffs (handoff_id, app_id, event_id, kind, event_created_at, claimed_by, lease_until, settled, pushes)
            VALUES (\(bind: id), \(bind: origin.appId), \(bind: origin.eventId), \(bind: origin.kind.rawValue), \(bind: origin.eventCreatedAt),
                \(bind: claim.owner), \(bind: claim.leaseUntil), \(bind: String(repeating: "0", count: count)), \(bind: pushes.text))
            """).run()
    }

    /// For each push id, its handoff and index, nil for a push that is not in a handoff. Answers come mostly in the
    /// order their pushes left, so a push of the same handoff as the one before shares that one's id string.
    static func positions(ofPushes ids: [String]) -> [(handoff: String, index: Int)?] {
        var previous: String?
        return ids.map { id in
            guard let dot = id.lastIndex(of: "."), let index = Int(id[id.index(after: dot)...]) else { return nil }
            if let previous, previous == id[..<dot] { return (previous, index) }
            let handoff = String(id[..<dot])
            previous = handoff
            return (handoff, index)
        }
    }

    /// Marks these pushes settled in the handoffs `owner` still holds, and deletes a handoff once all of its pushes
    /// are. `positions`: each push's place in its handoff (`positions(ofPushes:)`), nil for a push with an outbox row.
    /// - Returns: for each push, whether it was settled now (not one of a handoff released to another owner, nor one
    ///   settled before).
    static func settle(_ db: any SQLDatabase, _ backend: SQLBackend, owner: String, _ positions: [(handoff: String, index: Int)?]) async throws -> [Bool] {
        var settledNow = Array(repeating: false, count: positions.count)
        var byHandoff: [String: [(push: Int, index: Int)]] = [:]
        for (push, position) in positions.enumerated() {
            if let position { byHandoff[position.handoff, default: []].append((push, position.index)) }
        }
        guard !byHandoff.isEmpty else { return settledNow }
        let lock: SQLQueryString = backend == .postgres ? " FOR UPDATE" : ""
        let rows = try await db.raw("""
            SELECT handoff_id, settled FROM handoffs
            WHERE \(backend.among("handoff_id", byHandoff.keys.sorted())) AND claimed_by = \(bind: owner) ORDER BY handoff_id\(lock)
            """).all()
        for row in rows {
            let handoff = try row.decode(column: "handoff_id", as: String.self)
            var settled = Array(try row.decode(column: "settled", as: String.self).utf8)
            for push in byHandoff[handoff] ?? [] where settled.indices.contains(push.index) && settled[push.index] == UInt8(ascii: "0") {
                settled[push.index] = UInt8(ascii: "1")
                settledNow[push.push] = true
            }
            if !settled.contains(UInt8(ascii: "0")) {
                try await db.raw("DELETE FROM handoffs WHERE handoff_id = \(bind: handoff)").run()
            } else {
                try await db.raw("""
                    UPDATE handoffs SET settled = \(bind: String(decoding: settled, as: UTF8.self))
                    WHERE handoff_id = \(bind: handoff)
                    """).run()
            }
        }
        return settledNow
    }

    /// Turns the unsettled pushes of the handoffs matching `released` (their owner is gone) into pending outbox rows,
    /// due at once, and deletes the handoffs. - Returns: how many pushes were released.
    static func release(_ db: any SQLDatabase, _ backend: SQLBackend, where released: SQLQueryString) async throws -> Int {
        var count = 0
        for row in try await db.raw("SELECT * FROM handoffs WHERE \(released) ORDER BY handoff_id\(backend.skipLocked)").all() {
            let handoff = try row.decode(column: "handoff_id", as: String.self)
            let settled = Array(try row.decode(column: "settled", as: String.self).utf8)
            let pushes = try JSONDecoder().decode([[String]].self, from: Data(try row.decode(column: "pushes", as: String.self).utf8))
            var rounds = InsertRounds(OutboxRows.Origin(
                appId: try row.decode(column: "app_id", as: String.self), eventId: try row.decode(column: "event_id", as: String.self),
                eventCreatedAt: try row.decode(column: "event_created_at", as: Int64.self),
                kind: try row.decode(stored: "kind", as: PushKind.self)
            ))
            for (index, push) in pushes.enumerated() where settled.indices.contains(index) && settled[index] == UInt8(ascii: "0") {
                guard push.count == 4, let environment = Environment(rawValue: push[2]) else {
                    throw StoreError(.unavailable, "handoff \(handoff) stores an unreadable push at \(index)")
                }
                rounds.append(id: PushIds.next(), installationId: push[0], token: push[1], environment: environment, payload: push[3], due: 0, attempts: 0)
                count += 1
            }
            _ = try await rounds.insert(db, backend)
            try await db.raw("DELETE FROM handoffs WHERE handoff_id = \(bind: handoff)").run()
        }
        return count
    }

    /// Handed-off pushes going back to pending (a retry, a paused app): new outbox rows, by event and kind.
    struct Retries {
        private var byOrigin: [String: InsertRounds] = [:]

        mutating func add(_ push: OutboxPush, at due: Date, attempts: Int) {
            let origin = OutboxRows.Origin(appId: push.appId, eventId: push.eventId, eventCreatedAt: push.eventCreatedAt.milliseconds, kind: push.kind)
            byOrigin[push.eventId + "\u{0}" + push.kind.rawValue, default: InsertRounds(origin)].append(
                id: PushIds.next(), installationId: push.installationId, token: push.token, environment: push.environment,
                payload: push.payload, due: due.milliseconds, attempts: attempts
            )
        }

        func insert(_ db: any SQLDatabase, _ backend: SQLBackend) async throws {
            for key in byOrigin.keys.sorted() { _ = try await byOrigin[key]?.insert(db, backend) }
        }
    }

    /// Pushes still to settle in handoffs (the '0's of `settled`), of one app or of all.
    static func remaining(appId: String?) -> SQLQueryString {
        let app: SQLQueryString = appId.map { " WHERE app_id = \(bind: $0)" } ?? ""
        return "(SELECT COALESCE(SUM(LENGTH(settled) - LENGTH(REPLACE(settled, '0', ''))), 0) FROM handoffs\(app))"
    }
}
