import SQLKit
import SignalboxModel

/// A page's new outbox rows, column by column, and their insert: each row is stored, or absorbed by the pending
/// push to the same token with the same payload (the partial unique index `outbox_pending`). The rule is
/// `Coalescing` (SignalboxModel); this is its SQL.
struct OutboxRows {
    private var ids: [String] = []
    private var installations: [String] = []
    private var tokens: [String] = []
    private var environments: [String] = []
    private var payloads: [String] = []
    private var dues: [Int64] = []
    /// The claim of a push handed off (stored `sending`); "" and 0 for a pending push (PostgreSQL arrays hold no nulls).
    private var owners: [String] = []
    private var leases: [Int64] = []

    mutating func append(id: String, _ push: PlannedPush, due: Int64, claim: Claim?) {
        ids.append(id)
        installations.append(push.installationId)
        tokens.append(push.token)
        environments.append(push.environment.rawValue)
        payloads.append(push.payload)
        dues.append(due)
        owners.append(claim?.owner ?? "")
        leases.append(claim?.leaseUntil ?? 0)
    }

    /// Inserts the rows. The upsert marks (and on PostgreSQL locks) a pending twin, so no claim takes it before the
    /// caller attaches the event to it. - Returns: the ids of the pending twins that absorbed one of these rows.
    func insert(_ db: any SQLDatabase, _ backend: SQLBackend, event: EventRecord, kind: PushKind) async throws -> [String] {
        let columns = """
            INSERT INTO outbox (push_id, app_id, event_id, installation_id, token, kind, environment, payload, state, attempts,
                next_attempt_at, event_created_at, claimed_by, lease_until)
            """
        let shared: (app: SQLQueryString, event: SQLQueryString, kind: SQLQueryString, created: SQLQueryString) = (
            "\(bind: event.appId)", "\(bind: event.id)", "\(bind: kind.rawValue)", "\(bind: event.createdAt.milliseconds)"
        )
        switch backend {
        case .postgres:
            // One array per column; an updated row (the twin) is the one whose xmax is set.
            return try await db.raw("""
                WITH upserted AS (\(unsafeRaw: columns)
                    SELECT v.id, \(shared.app), \(shared.event), v.installation, v.token, \(shared.kind), v.environment, v.payload,
                        CASE v.owner WHEN '' THEN \(stored: OutboxState.pending) ELSE \(stored: OutboxState.sending) END, 0, v.due, \(shared.created), NULLIF(v.owner, ''),
                        NULLIF(v.lease, 0)
                    FROM unnest(\(bind: ids)::text[], \(bind: installations)::text[], \(bind: tokens)::text[], \(bind: environments)::text[],
                        \(bind: payloads)::text[], \(bind: dues)::bigint[], \(bind: owners)::text[], \(bind: leases)::bigint[])
                        AS v(id, installation, token, environment, payload, due, owner, lease)
                    ON CONFLICT (app_id, token, payload) WHERE state = \(stored: OutboxState.pending) DO UPDATE SET absorbed = 1
                    RETURNING push_id, xmax::text <> '0' AS absorbing)
                SELECT push_id FROM upserted WHERE absorbing
                """).all().map { try $0.decode(column: "push_id", as: String.self) }
        case .sqlite:
            // What the rows share is bound once. `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the
            // INSERT, not to a join. A returned id that is not ours is a twin's.
            let rows = ids.indices.map { index -> SQLQueryString in
                let state: SQLQueryString = owners[index].isEmpty
                    ? "\(stored: OutboxState.pending), NULL, NULL" : "\(stored: OutboxState.sending), \(bind: owners[index]), \(bind: leases[index])"
                return """
                    (\(bind: ids[index]), \(bind: installations[index]), \(bind: tokens[index]), \(bind: environments[index]),
                    \(bind: payloads[index]), \(bind: dues[index]), \(state))
                    """
            }
            let ours = Set(ids)
            return try await db.raw("""
                \(unsafeRaw: columns)
                SELECT v.column1, \(shared.app), \(shared.event), v.column2, v.column3, \(shared.kind), v.column4,
                    v.column5, v.column7, 0, v.column6, \(shared.created), v.column8, CAST(v.column9 AS BIGINT)
                FROM (VALUES \(rows.joined(separator: ", "))) AS v WHERE true
                ON CONFLICT (app_id, token, payload) WHERE state = \(stored: OutboxState.pending) DO UPDATE SET absorbed = 1
                RETURNING push_id
                """).all().map { try $0.decode(column: "push_id", as: String.self) }.filter { !ours.contains($0) }
        }
    }
}
