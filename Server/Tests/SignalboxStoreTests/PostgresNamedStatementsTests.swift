import Logging
import PostgresNIO
import SQLKit
import SignalboxModel
@testable import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// The store's PostgreSQL connections prepare a statement they run again (`PostgresNamedStatements`), and a prepared
/// statement that fails or goes stale never fails more than the one run. One connection per pool here, so that every
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

    @Test func aNamedStatementThatFailedRunsUnnamedOnItsConnectionAfterwards() async throws {
        try await withConnector { connector in
            func divide(_ divisor: Int) async throws -> Int? {
                try await connector.withDatabase { db in
                    try await db.raw("SELECT 12 / \(bind: divisor)::int AS quotient, 'named-failure' AS tag").first()?
                        .decode(column: "quotient", as: Int.self)
                }
            }
            #expect(try await divide(3) == 4)
            #expect(try await divide(4) == 3)
            await #expect(throws: PSQLError.self) { try await divide(0) }
            #expect(try await divide(6) == 2)
            #expect(try await divide(2) == 6)
            // The name prepared on the second run stays; no other was prepared for the text after its failure.
            let names = try await connector.withDatabase { db in
                try await db.raw("SELECT count(*) AS n FROM pg_prepared_statements WHERE strpos(statement, 'named' || '-failure') > 0").first()?
                    .decode(column: "n", as: Int.self)
            }
            #expect(names == 1)
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
