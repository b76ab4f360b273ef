import Foundation
import SQLKit
import SignalboxModel

/// The database every SQL store shares: its connector (one SQLite connection or a PostgreSQL pool), who this process
/// is in claims, and the transactions the stores run. One client per process and database; the stores hold it.
final class SQLDatabaseClient: Sendable {
    let connector: any SQLConnector
    /// Who this process is in the outbox's and the webhook queue's claims: fresh for every process, so a restart
    /// never completes the claims of the process before it.
    let owner = PushIds.next()
    /// How long a claim stays this process's; a claim older than that is another instance's to take over.
    let claimLease: Duration

    init(connector: any SQLConnector, claimLease: Duration = .seconds(60)) {
        self.connector = connector
        self.claimLease = claimLease
    }

    /// Which database this client runs on.
    var backend: SQLBackend { connector.backend }

    /// Closes the connections once running work is done; call it before the stores go away.
    func close() async throws {
        try await connector.close()
    }

    /// Applies the migrations this database has not seen.
    /// - Throws: `StoreError(.unavailable)` when the database was migrated by a newer Signalbox.
    func migrate() async throws {
        let backend = backend
        try await connector.migrating { db in
            try await db.raw("CREATE TABLE IF NOT EXISTS signalbox_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)").run()
            let applied = Set(try await db.raw("SELECT version FROM signalbox_migrations").all().map { try $0.decode(column: "version", as: Int.self) })
            if let newest = applied.max(), newest > Migrations.steps.count {
                throw StoreError(.unavailable, "the database has schema version \(newest), newer than this Signalbox knows (\(Migrations.steps.count)); run the newer Signalbox or restore a backup")
            }
            for (index, step) in Migrations.steps.enumerated() where !applied.contains(index + 1) {
                var statements = step
                if backend == .postgres { statements += Migrations.postgresSteps[index + 1] ?? [] }
                for statement in statements { try await db.raw(SQLQueryString(statement)).run() }
                try await db.raw("INSERT INTO signalbox_migrations (version, applied_at) VALUES (\(bind: index + 1), \(bind: Date().milliseconds))").run()
            }
        }
    }

    /// Runs `body` in a transaction; rolls back when it throws. `urgent`: someone waits for it (`SQLConnector`).
    func transaction<T: Sendable>(urgent: Bool = false, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await connector.transaction(urgent: urgent, body)
    }

    /// Runs one statement (atomic by itself) without BEGIN/COMMIT: on SQLite each statement costs a thread hop,
    /// so a transaction around a single one doubles its price.
    func oneStatement<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await connector.withDatabase(body)
    }

    func ping() async throws {
        try await oneStatement { db in try await db.raw("SELECT 1 AS one").run() }
    }

    /// The database's clock on a database instances share (PostgreSQL), nil on one a single process owns.
    func sharedTime() async throws -> Date? {
        guard backend == .postgres else { return nil }
        return try await oneStatement { db in
            // clock_timestamp(), not now(): now() is the transaction's start.
            let row = try await db.raw("SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT AS ms").first()
            return try row.map { Date(milliseconds: try $0.decode(column: "ms", as: Int64.self)) }
        }
    }
}
