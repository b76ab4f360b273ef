import Foundation
import SQLKit
import SignalboxModel

/// The delivery log's reads: per token, installation and event, and counts by outcome. A line is a row of
/// `delivery_log` or one element of a run in `delivery_runs` (`LogRun`); every read covers both.
struct SQLDeliveryLog: DeliveryLogStore, SQLStore {
    let database: SQLDatabaseClient
    /// Whether lines are written (`deliveryLog.maxLines` 0 turns the log off); the reads still answer.
    let writes: Bool

    /// The token's lines that are not `delivered` (and its direct pushes) by the token's index; its `delivered` lines
    /// through the installations that have it registered or that its other lines name. A token an installation
    /// replaced without a failure shows its `delivered` lines only under that installation.
    func deliveryLog(appId: String, token: String, limit: Int) async throws -> [DeliveryLogEntry] {
        let backend = backend
        return try await oneStatement { db in
            let byToken: SQLQueryString = "app_id = \(bind: appId) AND token = \(bind: token) AND (\(Self.indexedByToken))"
            let registered = ["controls", "widget_tokens", "file_provider_tokens"].map { table -> SQLQueryString in
                "SELECT installation_id FROM \(unsafeRaw: table) WHERE app_id = \(bind: appId) AND push_token = \(bind: token)"
            }
            // DISTINCT over UNION ALL: SQLite plans a UNION of these as ordered scans of each table's primary key.
            return try await db.raw("""
                \(Self.with(backend, appId: appId, installations: """
                    SELECT DISTINCT installation_id FROM (
                        \(registered.joined(separator: " UNION ALL "))
                        UNION ALL SELECT installation_id FROM delivery_log WHERE \(byToken) AND installation_id IS NOT NULL) AS ids
                    """))
                SELECT \(unsafeRaw: Self.lineColumns) FROM delivery_log WHERE \(byToken)
                UNION ALL
                \(Self.installationLines(backend, appId: appId, deliveredTo: token))
                ORDER BY logged_at DESC, attempt DESC LIMIT \(bind: limit)
                """).all().map(Self.logEntry)
        }
    }

    /// The lines `delivery_log_token` holds (its `WHERE`, written the same so that both databases use it).
    private static let indexedByToken: SQLQueryString = "outcome <> \(stored: DeliveryOutcome.delivered) OR installation_id IS NULL"

    func deliveryLog(appId: String, installationId: String, limit: Int) async throws -> [DeliveryLogEntry] {
        let backend = backend
        return try await oneStatement { db in
            try await db.raw("""
                \(Self.with(backend, appId: appId, installations: "SELECT \(bind: installationId)"))
                \(Self.installationLines(backend, appId: appId))
                ORDER BY logged_at DESC, attempt DESC LIMIT \(bind: limit)
                """).all().map(Self.logEntry)
        }
    }

    /// `WITH` the `installations` (a query of ids) as `installs (id)`, and as `held_runs` the app's runs whose range of
    /// installation ids holds one of them (`wanted`). Materialized: PostgreSQL otherwise unpacked every run of the
    /// app before it tested the range.
    private static func with(_ backend: SQLBackend, appId: String, installations: SQLQueryString) -> SQLQueryString {
        """
        WITH installs (id) AS (\(installations)),
        held_runs AS MATERIALIZED (
            SELECT run.app_id, run.push_type, run.event_id, run.attempt, run.outcome, run.status, run.reason, run.logged_at,
                run.lines, installs.id AS wanted
            FROM installs CROSS JOIN delivery_runs AS run
            WHERE run.app_id = \(bind: appId) AND run.first_installation\(backend.bytewise) <= installs.id
                AND run.last_installation\(backend.bytewise) >= installs.id)
        """
    }

    /// The lines of the installations that `with` names, only the `delivered` ones to a token when given: rows by the
    /// installation index, and elements of `held_runs`. `CROSS JOIN` keeps SQLite's join order: the few ids first,
    /// then the seeks for each.
    private static func installationLines(_ backend: SQLBackend, appId: String, deliveredTo token: String? = nil) -> SQLQueryString {
        let row: SQLQueryString = token.map { "AND token = \(bind: $0) AND outcome = \(stored: DeliveryOutcome.delivered)" } ?? ""
        let element: SQLQueryString = token.map { "AND line.value ->> \(runLine: .token) = \(bind: $0)" } ?? ""
        return """
            SELECT \(unsafeRaw: lineColumns) FROM installs CROSS JOIN delivery_log
                WHERE app_id = \(bind: appId) AND installation_id = installs.id \(row)
            UNION ALL
            \(runLines(backend, from: "held_runs AS run")) WHERE line.value ->> \(runLine: .installation) = run.wanted \(element)
            """
    }

    func deliveryLog(appId: String, eventId: String, limit: Int) async throws -> [DeliveryLogEntry] {
        let backend = backend
        return try await oneStatement { db in
            // Each run holds at least one line: the event's newest `limit` runs hold its newest `limit` lines.
            try await db.raw("""
                SELECT \(unsafeRaw: Self.lineColumns) FROM delivery_log WHERE event_id = \(bind: eventId) AND app_id = \(bind: appId)
                UNION ALL
                \(Self.runLines(backend, from: """
                    (SELECT * FROM delivery_runs WHERE event_id = \(bind: eventId) AND app_id = \(bind: appId)
                        ORDER BY logged_at DESC LIMIT \(bind: limit)) AS run
                    """))
                ORDER BY logged_at DESC, attempt DESC LIMIT \(bind: limit)
                """).all().map(Self.logEntry)
        }
    }

    func deliveryOutcomes(appId: String, since: Date) async throws -> [DeliveryOutcome: Int] {
        try await outcomes("app_id = \(bind: appId) AND logged_at >= \(bind: since.milliseconds)")
    }

    func deliveryOutcomes(appId: String, eventId: String) async throws -> [DeliveryOutcome: Int] {
        try await outcomes("event_id = \(bind: eventId) AND app_id = \(bind: appId)")
    }

    private func outcomes(_ filter: SQLQueryString) async throws -> [DeliveryOutcome: Int] {
        try await oneStatement { db in
            var counts: [DeliveryOutcome: Int] = [:]
            for row in try await db.raw("""
                SELECT outcome, COUNT(*) AS n FROM delivery_log WHERE \(filter) GROUP BY outcome
                UNION ALL
                SELECT outcome, SUM(line_count) AS n FROM delivery_runs WHERE \(filter) GROUP BY outcome
                """).all() {
                counts[try row.decode(stored: "outcome", as: DeliveryOutcome.self), default: 0] += try row.decode(column: "n", as: Int.self)
            }
            return counts
        }
    }

    /// A line's columns, in `logEntry`'s names, as `delivery_log` has them.
    static let lineColumns = "app_id, token, push_type, event_id, attempt, outcome, status, reason, apns_id, logged_at, installation_id"

    /// A run's lines with `lineColumns`, from `runs` (a `FROM` item that names the runs `run`); a `WHERE` may follow.
    private static func runLines(_ backend: SQLBackend, from runs: SQLQueryString) -> SQLQueryString {
        """
        SELECT run.app_id, line.value ->> \(runLine: .token) AS token, run.push_type, run.event_id, run.attempt, run.outcome, run.status,
            run.reason, line.value ->> \(runLine: .apnsId) AS apns_id, run.logged_at, line.value ->> \(runLine: .installation) AS installation_id
        FROM \(runs) CROSS JOIN \(backend.elements(of: "run.lines"))
        """
    }

    private static func logEntry(_ row: any SQLRow) throws -> DeliveryLogEntry {
        DeliveryLogEntry(
            appId: try row.decode(column: "app_id", as: String.self), token: try row.decode(column: "token", as: String.self),
            pushType: try row.decode(column: "push_type", as: String.self),
            eventId: try row.decode(column: "event_id", as: String?.self),
            installationId: try row.decode(column: "installation_id", as: String?.self),
            outcome: try row.decode(stored: "outcome", as: DeliveryOutcome.self),
            answer: DeliveryAnswer(
                status: try row.decode(column: "status", as: Int?.self), reason: try row.decode(column: "reason", as: String?.self),
                apnsId: try row.decode(column: "apns_id", as: String?.self)
            ),
            attempt: try row.decode(column: "attempt", as: Int.self),
            at: Date(milliseconds: try row.decode(column: "logged_at", as: Int64.self))
        )
    }
}
