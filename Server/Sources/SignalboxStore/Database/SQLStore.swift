import SQLKit

/// A store over the shared client: its transactions and single statements run through the client.
protocol SQLStore: Sendable {
    var database: SQLDatabaseClient { get }
}

extension SQLStore {
    /// Which database the store runs on (see `SQLBackend` for what differs).
    var backend: SQLBackend { database.backend }

    /// Runs `body` in a transaction; rolls back when it throws. `urgent`: someone waits for it (`SQLConnector`).
    func transaction<T: Sendable>(urgent: Bool = false, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await database.transaction(urgent: urgent, body)
    }

    /// Runs one statement (atomic by itself) without BEGIN/COMMIT (see `SQLDatabaseClient.oneStatement`).
    func oneStatement<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await database.oneStatement(body)
    }
}
