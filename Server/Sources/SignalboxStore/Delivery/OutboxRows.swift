import SQLKit
import SignalboxModel

/// New pending outbox rows of one event and kind, column by column, and their insert: each row is stored, or absorbed
/// by the pending push to the same token with the same payload (the partial unique index `outbox_pending`). The rule
/// is `Coalescing` (SignalboxModel); this is its SQL.
struct OutboxRows {
    /// What the rows share.
    struct Origin {
        let appId: String
        let eventId: String
        let eventCreatedAt: Int64
        let kind: PushKind
    }

    let origin: Origin
    private var ids: [String] = []
    private var installations: [String] = []
    private var tokens: [String] = []
    private var environments: [String] = []
    private var payloads: [String] = []
    private var dues: [Int64] = []
    private var attempts: [Int] = []

    init(_ origin: Origin) { self.origin = origin }

    var isEmpty: Bool { ids.isEmpty }

    mutating func append(id: String, installationId: String, token: String, environment: Environment, payload: String, due: Int64, attempts: Int = 0) {
        ids.append(id)
        installations.append(installationId)
        tokens.append(token)
        environments.append(environment.rawValue)
        payloads.append(payload)
        dues.append(due)
        self.attempts.append(attempts)
    }

    /// Inserts the rows, and attaches the event to each pending twin that absorbed one of them.
    /// - Returns: how many were absorbed.
    func insert(_ db: any SQLDatabase, _ backend: SQLBackend) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let carriers = try await insertRows(db, backend)
        for chunk in carriers.sorted().chunked(300) {
            let values = chunk.map { id -> SQLQueryString in "(\(bind: id), \(bind: origin.eventId), \(bind: origin.appId))" }
            try await db.raw("""
                INSERT INTO outbox_absorbed (push_id, event_id, app_id) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (push_id, event_id) DO UPDATE SET pushes = outbox_absorbed.pushes + 1
                """).run()
            try await db.raw("UPDATE outbox SET absorbed = 1 WHERE \(backend.among("push_id", Array(chunk)))").run()
        }
        return carriers.count
    }

    /// The upsert marks (and on PostgreSQL locks) a pending twin, so no claim takes it before `insert` attaches the
    /// event to it. - Returns: the ids of the pending twins that absorbed one of these rows.
    private func insertRows(_ db: any SQLDatabase, _ backend: SQLBackend) async throws -> [String] {
        let columns = """
            INSERT INTO outbox (push_id, app_id, event_id, installation_id, token, kind, environment, payload, state, attempts,
                next_attempt_at, event_created_at)
            """
        let shared: (app: SQLQueryString, event: SQLQueryString, kind: SQLQueryString, created: SQLQueryString) = (
            "\(bind: origin.appId)", "\(bind: origin.eventId)", "\(bind: origin.kind.rawValue)", "\(bind: origin.eventCreatedAt)"
        )
        switch backend {
        case .postgres:
            // One array per column; an updated row (the twin) is the one whose xmax is set.
            return try await db.raw("""
                WITH upserted AS (\(unsafeRaw: columns)
                    SELECT v.id, \(shared.app), \(shared.event), v.installation, v.token, \(shared.kind), v.environment, v.payload,
                        \(stored: OutboxState.pending), v.attempts, v.due, \(shared.created)
                    FROM unnest(\(bind: ids)::text[], \(bind: installations)::text[], \(bind: tokens)::text[], \(bind: environments)::text[],
                        \(bind: payloads)::text[], \(bind: dues)::bigint[], \(bind: attempts)::int[])
                        AS v(id, installation, token, environment, payload, due, attempts)
                    ON CONFLICT (app_id, token, payload) WHERE state = \(stored: OutboxState.pending) DO UPDATE SET absorbed = 1
                    RETURNING push_id, xmax::text <> '0' AS absorbing)
                SELECT push_id FROM upserted WHERE absorbing
                """).all().map { try $0.decode(column: "push_id", as: String.self) }
        case .sqlite:
            // What the rows share is bound once. `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the
            // INSERT, not to a join. A returned id that is not ours is a twin's.
            let rows = ids.indices.map { index -> SQLQueryString in
                """
                (\(bind: ids[index]), \(bind: installations[index]), \(bind: tokens[index]), \(bind: environments[index]),
                \(bind: payloads[index]), \(bind: dues[index]), \(bind: attempts[index]))
                """
            }
            let ours = Set(ids)
            return try await db.raw("""
                \(unsafeRaw: columns)
                SELECT v.column1, \(shared.app), \(shared.event), v.column2, v.column3, \(shared.kind), v.column4,
                    v.column5, \(stored: OutboxState.pending), v.column7, v.column6, \(shared.created)
                FROM (VALUES \(rows.joined(separator: ", "))) AS v WHERE true
                ON CONFLICT (app_id, token, payload) WHERE state = \(stored: OutboxState.pending) DO UPDATE SET absorbed = 1
                RETURNING push_id
                """).all().map { try $0.decode(column: "push_id", as: String.self) }.filter { !ours.contains($0) }
        }
    }
}

/// Rows to insert pending, split into inserts whose rows have distinct coalescing keys: one upsert cannot both insert
/// a row and absorb another into it (PostgreSQL refuses, and SQLite's returned ids would not tell the twin).
struct InsertRounds {
    let origin: OutboxRows.Origin
    private var rounds: [(rows: OutboxRows, keys: Set<String>)] = []

    init(_ origin: OutboxRows.Origin) { self.origin = origin }

    mutating func append(id: String, installationId: String, token: String, environment: Environment, payload: String, due: Int64, attempts: Int) {
        let key = PlannedPush.coalescingKey(token: token, payload: payload)
        let round = rounds.firstIndex { !$0.keys.contains(key) } ?? {
            rounds.append((OutboxRows(origin), []))
            return rounds.count - 1
        }()
        rounds[round].keys.insert(key)
        rounds[round].rows.append(id: id, installationId: installationId, token: token, environment: environment, payload: payload, due: due, attempts: attempts)
    }

    /// - Returns: how many rows were absorbed.
    func insert(_ db: any SQLDatabase, _ backend: SQLBackend) async throws -> Int {
        var absorbed = 0
        for round in rounds { absorbed += try await round.rows.insert(db, backend) }
        return absorbed
    }
}
