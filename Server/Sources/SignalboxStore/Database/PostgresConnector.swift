import Foundation
import Logging
import NIOPosix
import NIOSSL
import PostgresKit
import PostgresNIO
import SQLKit
import SignalboxModel

/// PostgreSQL through a PostgresNIO connection pool; each transaction runs on one leased connection.
final class PostgresConnector: SQLConnector {
    let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger
    /// Nil: the URL turned prepared statements off.
    private let namedStatements: PostgresNamedStatements?

    var backend: SQLBackend { .postgres }

    private init(client: PostgresClient, runner: Task<Void, Never>, namedStatements: Bool, logger: Logger) {
        self.client = client
        self.namedStatements = namedStatements ? PostgresNamedStatements() : nil
        self.runner = runner
        self.logger = logger
    }

    /// Opens the pool: its connection work runs (outside any caller's task, since the stores outlive the start-up
    /// that opens them) until `close`. `namedStatements`: whether statements a connection runs again are prepared
    /// (`PostgresNamedStatements`).
    static func start(configuration: PostgresClient.Configuration, namedStatements: Bool = true, logger: Logger) -> PostgresConnector {
        let client = PostgresClient(configuration: configuration, eventLoopGroup: Self.eventLoops, backgroundLogger: logger)
        return PostgresConnector(client: client, runner: Task { await client.run() }, namedStatements: namedStatements, logger: logger)
    }

    func withDatabase<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await retryingRaces { try await self.client.withConnection { connection in try await body(PostgresSQLDatabase(connection: connection, namedStatements: self.namedStatements)) } }
    }

    /// A pool has no queue to jump: `urgent` changes nothing.
    func transaction<T: Sendable>(urgent: Bool, _ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await retryingRaces {
            try await self.client.withConnection { connection in
                // A connection left inside a transaction would poison the pool: closed, the pool replaces it.
                try await PostgresSQLDatabase(connection: connection, namedStatements: self.namedStatements).inTransaction(body, abandon: { try? await connection.close() })
            }
        }
    }

    func migrating<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        // A transaction-scoped advisory lock: a second instance starting at once waits, then finds the work done.
        try await transaction { db in
            try await db.raw("SELECT pg_advisory_xact_lock(\(bind: Self.migrationLock))").run()
            return try await body(db)
        }
    }

    func listen(channel: String, _ body: @escaping @Sendable (String) -> Void) async throws {
        // One pooled connection stays on LISTEN for as long as this runs.
        try await client.withConnection { connection in
            try await connection.listen(on: channel) { notifications in
                for try await notification in notifications { body(notification.payload) }
            }
        }
        if !Task.isCancelled { throw StoreError(.unavailable, "the connection listening for other instances' changes closed") }
    }

    func close() async throws {
        runner.cancel()
        await runner.value
    }

    /// The pool's connections run on a thread of their own, not on the loops that carry the APNs connections and the
    /// API, where each statement's write and answer waited behind APNs frames, and a fan-out page's round trips (one
    /// after another) with them (docs/performance.md). One thread: a push costs PostgreSQL's connections a few
    /// microseconds of I/O.
    private static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Any fixed number, the same in every instance.
    private static let migrationLock: Int64 = 0x5167_6e61_6c62_6f78

    /// Runs `work` again (up to 8 times, after a short random pause) when it lost a race with another
    /// transaction: serialization failure (40001), deadlock (40P01) or a unique violation (23505) on a row
    /// another instance inserted first. The work re-reads, so its next run sees the winner's rows.
    /// Also when a prepared statement was stale (`isStale`): its next run prepares it again.
    private func retryingRaces<T>(_ work: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await work()
            } catch let error as PSQLError where attempt < 8 && (Self.isRace(error) || Self.isStale(error)) {
                attempt += 1
                logger.debug("transaction lost a race or met a stale prepared statement; running it again", metadata: ["sqlState": "\(error.serverInfo?[.sqlState] ?? "")"])
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 << min(attempt, 5)))))
            }
        }
    }

    static func isRace(_ error: PSQLError) -> Bool {
        ["40001", "40P01", "23505"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// A prepared statement that cannot run again as it was prepared: a migration (another instance's) changed the
    /// columns of its `SELECT *` (0A000, PostgreSQL's own message), or the server no longer has it (26000).
    static func isStale(_ error: PSQLError) -> Bool {
        switch error.serverInfo?[.sqlState] {
        case "26000": true
        case "0A000": error.serverInfo?[.message] == "cached plan must not change result type"
        default: false
        }
    }

    /// Whether the URL lets the pool's connections prepare statements: `prepared_statements=false` turns that off
    /// for a pooler in front of PostgreSQL that does not keep them (PgBouncer's transaction mode before 1.21).
    static func preparedStatements(url: String) throws -> Bool {
        switch URLComponents(string: url)?.queryItems?.first(where: { $0.name == "prepared_statements" })?.value {
        case nil, "true": return true
        case "false": return false
        case let text?: throw StoreError(.unavailable, "prepared_statements must be true or false, not \(text)")
        }
    }

    /// The pool's configuration from a URL.
    static func configuration(url: String) throws -> PostgresClient.Configuration {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
              let user = parts.user, !user.isEmpty
        else {
            throw StoreError(.unavailable, "the database URL must look like postgres://user:password@host:5432/database")
        }
        let database = parts.path.split(separator: "/").first.map(String.init)
        let mode = parts.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch mode {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        default: throw StoreError(.unavailable, "sslmode must be disable, prefer or require, not \(mode)")
        }
        var configuration: PostgresClient.Configuration
        if let socket = parts.queryItems?.first(where: { $0.name == "host" })?.value, socket.hasPrefix("/") {
            configuration = .init(unixSocketPath: socket + "/.s.PGSQL.\(parts.port ?? 5432)", username: user, password: parts.password, database: database)
        } else {
            configuration = .init(host: parts.host ?? "localhost", port: parts.port ?? 5432, username: user, password: parts.password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = try connectTimeout(url: url)
        return configuration
    }

    /// How long one connection may take to open and log in: the URL's `connect_timeout` (libpq's name) in whole
    /// seconds from 1 to 3600, else 10 s. A connection slower than this is dropped and tried again, so too short a
    /// limit keeps a slow database from ever getting one.
    static func connectTimeout(url: String) throws -> Duration {
        guard let text = URLComponents(string: url)?.queryItems?.first(where: { $0.name == "connect_timeout" })?.value else {
            return .seconds(10)
        }
        guard let seconds = Int(text), (1...3_600).contains(seconds) else {
            throw StoreError(.unavailable, "connect_timeout must be whole seconds from 1 to 3600, not \(text)")
        }
        return .seconds(seconds)
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url) else { return "(unparsable URL)" }
        if parts.password != nil { parts.password = "***" }
        return parts.string ?? "(unparsable URL)"
    }

    /// A one-line reason: the server's message when it sent one (wrong password, unknown database), else the error.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        return "\(error.code)"
    }
}
