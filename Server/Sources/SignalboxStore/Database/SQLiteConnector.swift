import SQLKit

/// SQLite: one connection, one transaction at a time (a transaction owns the connection).
struct SQLiteConnector: SQLConnector {
    let database: any SQLDatabase
    let lock = SerialLock()
    let closeConnection: @Sendable () async throws -> Void

    var backend: SQLBackend { .sqlite }

    func withDatabase<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let database = database
        return try await lock.withLock { try await body(database) }
    }

    func transaction<T: Sendable>(urgent: Bool, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let database = database
        return try await lock.withLock(urgent: urgent) { try await database.inTransaction(body) }
    }

    func migrating<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await transaction(body)
    }

    func listen(channel: String, _ body: @escaping @Sendable (String) -> Void) async throws {}

    func close() async throws {
        try await lock.withLock { try await closeConnection() }
    }
}
