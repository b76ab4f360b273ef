import Logging
import PostgresNIO
import SQLKit
import SignalboxModel
@testable import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// The store's PostgreSQL connections prepare a statement they run again (`PostgresNamedStatements`), and a prepared
/// statement that failed or went stale never fails a later run. One connection per pool here, so that every
/// run of a test lands on the connection whose prepared statements it reads.
@Suite(.enabled(if: Backend.available.contains(.postgres)))
struct PostgresNamedStatementsTests {
    @Test func aStatementRunAgainIsPreparedOnItsConnectionAndNotBefore() async throws {
        try await withConnector { connector in
            let count: SQLQueryString = "SELECT count(*) AS n FROM pg_prepared_statements WHERE strpos(statement, 'named' || '-test') > 0"
            for run in 1...3 {
                let sum = try await connector.withDatabase { db in
                    try await db.raw("SELECT \(bind: run) + 1 AS sum, 'named-test' AS tag").first()?.decode(column: "sum", as: Int.self)
                }
                #expect(sum == run + 1)
                let prepared = try await connector.withDatabase { db in try await db.raw(count).first()?.decode(column: "n", as: Int.self) }
                #expect(prepared == (run == 1 ? 0 : 1), "after run \(run)")
            }
        }
    }

    @Test func aSelectStarPreparedBeforeAnotherInstancesMigrationStillRuns() async throws {
        try await withConnector { connector in
            try await connector.withDatabase { db in
                try await db.raw("CREATE TABLE things (id int)").run()
                try await db.raw("INSERT INTO things VALUES (1)").run()
            }
            for _ in 1...2 {
                let columns = try await connector.withDatabase { db in try await db.raw("SELECT * FROM things").first()?.allColumns }
                #expect(columns == ["id"])
            }
            try await connector.withDatabase { db in try await db.raw("ALTER TABLE things ADD COLUMN added int DEFAULT 2").run() }
            // PostgreSQL refuses the prepared text now ("cached plan must not change result type"); the run is repeated.
            let row = try await connector.transaction(urgent: false) { db in try await db.raw("SELECT * FROM things").first() }
            #expect(try row?.decode(column: "added", as: Int.self) == 2)
        }
    }

    @Test func aTextWhosePreparationFailedRunsUnnamedOnItsConnectionAfterwards() async throws {
        try await withConnector { connector in
            let read: SQLQueryString = "SELECT count(*) AS n FROM later"
            // The first run is unnamed, the second is prepared: both fail, the table does not exist yet. PostgresNIO
            // keeps the failed preparation for the connection's life, so its name must not be used again.
            for _ in 1...2 {
                await #expect(throws: PSQLError.self) { try await connector.withDatabase { db in try await db.raw(read).run() } }
            }
            try await connector.withDatabase { db in try await db.raw("CREATE TABLE later (id int)").run() }
            for _ in 1...2 {
                let count = try await connector.withDatabase { db in try await db.raw(read).first()?.decode(column: "n", as: Int.self) }
                #expect(count == 0)
            }
        }
    }

    @Test func theURLTurnsPreparedStatementsOff() async throws {
        #expect(try PostgresConnector.preparedStatements(url: "postgres://u@h/d"))
        #expect(try PostgresConnector.preparedStatements(url: "postgres://u@h/d?prepared_statements=true"))
        #expect(try !PostgresConnector.preparedStatements(url: "postgres://u@h/d?sslmode=disable&prepared_statements=false"))
        let error = #expect(throws: StoreError.self) { try PostgresConnector.preparedStatements(url: "postgres://u@h/d?prepared_statements=0") }
        #expect(error?.message.contains("prepared_statements must be true or false") == true)

        try await withConnector(namedStatements: false) { connector in
            for run in 1...3 {
                _ = try await connector.withDatabase { db in try await db.raw("SELECT \(bind: run) AS n, 'named-off' AS tag").first() }
            }
            let prepared = try await connector.withDatabase { db in
                try await db.raw("SELECT count(*) AS n FROM pg_prepared_statements").first()?.decode(column: "n", as: Int.self)
            }
            #expect(prepared == 0)
        }
    }

    /// A connector on a fresh database whose pool has one connection.
    private func withConnector(namedStatements: Bool = true, _ body: (PostgresConnector) async throws -> Void) async throws {
        var configuration = try PostgresConnector.configuration(url: try await TestDatabases.fresh())
        configuration.options.maximumConnections = 1
        let connector = PostgresConnector.start(configuration: configuration, namedStatements: namedStatements, logger: Logger(label: "test"))
        do {
            try await body(connector)
        } catch {
            try? await connector.close()
            throw error
        }
        try await connector.close()
    }
}
