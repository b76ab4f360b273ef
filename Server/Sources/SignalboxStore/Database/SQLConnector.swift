import SQLKit
import SignalboxModel

/// How `SQLDatabaseClient` reaches its database: one connection used in turn (SQLite) or a pool shared with other
/// instances (PostgreSQL). The store's SQL is the same on both except where `backend` says otherwise.
protocol SQLConnector: Sendable {
    var backend: SQLBackend { get }
    /// Runs `body` (one statement, atomic by itself) on a connection.
    func withDatabase<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs `body` in one transaction on one connection; rolls back when it throws. A transaction that loses a
    /// race with another instance (serialization failure, deadlock, unique violation) is run again. An `urgent`
    /// one, which someone waits for, goes ahead of queued background work where transactions take turns (SQLite).
    func transaction<T: Sendable>(urgent: Bool, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Runs the migrations' `body` so that two instances starting at once do not both migrate.
    func migrating<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    /// Calls `body` with each notification's payload on `channel` until cancelled (PostgreSQL's LISTEN); returns
    /// at once on a database one process owns.
    func listen(channel: String, _ body: @escaping @Sendable (String) -> Void) async throws
    func close() async throws
}

extension SQLConnector {
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await transaction(urgent: false, body)
    }
}

/// What differs between the backends' SQL and semantics.
enum SQLBackend: String, Sendable {
    /// One process owns the database file: its claims are the only ones.
    case sqlite
    /// Several instances share the database: claims have an owner and a lease, rows are locked.
    case postgres

    /// Appended to a `SELECT` that picks rows to claim: another instance's picks are skipped, not waited for.
    var skipLocked: SQLQueryString { self == .postgres ? " FOR UPDATE SKIP LOCKED" : "" }
    /// A statement that tells other instances about `change` when its transaction commits, or nil.
    func announce(_ change: StorageChange) -> SQLQueryString? {
        self == .postgres ? "SELECT pg_notify(\(bind: Self.changesChannel), \(bind: change.rawValue))" : nil
    }
    /// `insert` (an `INSERT` without `RETURNING`) and, on PostgreSQL, `announce(change)` in one statement: one round
    /// trip where a transaction of both takes four.
    func announcing(_ change: StorageChange, _ insert: SQLQueryString) -> SQLQueryString {
        guard let announce = announce(change) else { return insert }
        return "WITH inserted AS (\(insert) RETURNING 1) \(announce) FROM inserted"
    }
    /// The LISTEN/NOTIFY channel of `StorageChange`s.
    static let changesChannel = "signalbox_changes"
    /// Appended to a `SELECT` of rows this transaction will change.
    var forUpdate: SQLQueryString { self == .postgres ? " FOR UPDATE" : "" }
    /// `column` is one of `values`: on PostgreSQL one array parameter, which costs less to encode, send and parse
    /// than a parameter per value.
    func among(_ column: String, _ values: [String]) -> SQLQueryString {
        self == .postgres ? "\(unsafeRaw: column) = ANY(\(bind: values))" : "\(unsafeRaw: column) IN (\(binds: values))"
    }
}

extension SQLDatabase {
    /// `body` between BEGIN and COMMIT on this connection; ROLLBACK when it throws. When the ROLLBACK fails too
    /// (a cancelled task), `abandon` is called: the connection is still inside the transaction and must not be reused.
    func inTransaction<T: Sendable>(
        _ body: @Sendable (any SQLDatabase) async throws -> T, abandon: () async -> Void = {}
    ) async throws -> T {
        try await raw("BEGIN").run()
        do {
            let result = try await body(self)
            try await raw("COMMIT").run()
            return result
        } catch {
            do { try await raw("ROLLBACK").run() } catch { await abandon() }
            throw error
        }
    }
}
