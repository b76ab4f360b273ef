import Foundation
import Logging
import PostgresNIO
import SignalboxModel

extension SQLStores {
    /// The scale-out backend, several Signalbox instances on one PostgreSQL database: connects to `url`
    /// (`postgres://user:password@host:port/database`, `?sslmode=disable|prefer|require`, `&connect_timeout=seconds`,
    /// `&prepared_statements=false`),
    /// checks the connection and migrates the schema.
    /// - Throws: `StoreError(.unavailable)` naming what is wrong (bad URL, unreachable, refused, newer schema).
    /// - Parameters:
    ///   - claimLease: how long a claim stays this instance's (`DeliveryConfiguration.claimLease`).
    ///   - maxConnections: the pool's size (the database's `max_connections` bounds the sum over instances).
    ///   - deliveryLog: whether push answers are written to the delivery log.
    ///   - connectDeadline: how long the first connection may take before the start is refused (at least the URL's
    ///     `connect_timeout`, so that one slow attempt can finish).
    public static func postgres(
        url: String, logger: Logger, claimLease: Duration, maxConnections: Int = 16, deliveryLog: Bool = true,
        connectDeadline: Duration = .seconds(20)
    ) async throws -> SQLStores {
        var configuration = try PostgresConnector.configuration(url: url)
        configuration.options.maximumConnections = maxConnections
        let deadline = max(connectDeadline, configuration.options.connectTimeout)
        var sqlLogger = logger
        sqlLogger.logLevel = max(logger.logLevel, .info)
        let connector = PostgresConnector.start(
            configuration: configuration, namedStatements: try PostgresConnector.preparedStatements(url: url), logger: sqlLogger
        )
        let client = SQLDatabaseClient(connector: connector, claimLease: claimLease)
        do {
            // The pool retries a refused connection for ever: give the first one a deadline.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await client.ping() }
                group.addTask {
                    try await Task.sleep(for: deadline)
                    throw StoreError(
                        .unavailable, "PostgreSQL at \(PostgresConnector.redacted(url)) did not answer within \(Int(deadline.seconds)) s (unreachable, or no free connection)"
                    )
                }
                try await group.next()
                group.cancelAll()
            }
            try await client.migrate()
        } catch {
            try? await connector.close()
            if let error = error as? StoreError { throw error }
            throw StoreError(.unavailable, "PostgreSQL at \(PostgresConnector.redacted(url)): \(PostgresConnector.describe(error))")
        }
        return SQLStores(database: client, deliveryLog: deliveryLog)
    }
}
