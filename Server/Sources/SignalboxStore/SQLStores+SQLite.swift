import Foundation
import Logging
import SQLiteKit

extension SQLStores {
    /// The embedded default: opens (creating if needed) the SQLite file at `path`, or an in-memory database for
    /// `nil`, and migrates it.
    /// - Parameter deliveryLog: whether push answers are written to the delivery log.
    public static func sqlite(path: String?, logger: Logger, deliveryLog: Bool = true) async throws -> SQLStores {
        // SQLiteNIO logs every statement at debug; keep that out of Signalbox's debug log.
        var sqlLogger = logger
        sqlLogger.logLevel = max(logger.logLevel, .info)
        let connection = try await SQLiteConnection.open(storage: path.map { .file(path: $0) } ?? .memory, logger: sqlLogger)
        // The future's close, not the async one: the async one throws when the task is cancelled (a server stopped by
        // cancellation, a failed test), and an unclosed connection's deinit stops the whole process.
        let close: @Sendable () async throws -> Void = { try await connection.close().get() }
        let database = SQLiteDirectDatabase(connection: connection)
        let client = SQLDatabaseClient(connector: SQLiteConnector(database: database, closeConnection: close))
        do {
            for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA busy_timeout = 5000"] {
                try await database.raw(SQLQueryString(pragma)).run()
            }
            try await client.migrate()
        } catch {
            try? await close()
            throw error
        }
        return SQLStores(database: client, deliveryLog: deliveryLog)
    }
}
