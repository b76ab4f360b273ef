import Logging
import PostgresKit
import SQLKit
@testable import SignalboxStore
import SignalboxStoreTestSupport
import Testing

/// The store's PostgreSQL rows (`PostgresSQLDatabase`) decode every cell as PostgresKit's rows do: the types it
/// decodes itself, the ones it leaves to PostgresKit, NULLs, binds of each kind, and a missing column.
@Suite struct PostgresRowDecodingTests {
    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func cellsDecodeAsPostgresKitDecodesThem() async throws {
        let url = try await TestDatabases.fresh()
        let connector = PostgresConnector.start(configuration: try PostgresConnector.configuration(url: url), logger: Logger(label: "test"))
        do {
            try await connector.client.withConnection { connection in
                let query: SQLQueryString = """
                    SELECT 'token'::text AS t, NULL::text AS n, 7::int4 AS i4, 9000000000::int8 AS i8, true AS b, NULL::bool AS nb,
                        NULL::int8 AS ni8, 1.5::float8 AS d, '{"a":1}'::jsonb AS j,
                        \(bind: "bound") AS bs, \(bind: 42) AS bi, \(bind: Int64(-5)) AS bl, \(bind: false) AS bb,
                        \(bind: String?.none) AS bn, \(bind: ["x", "y"]) AS ba
                    """
                let ours = try #require(try await PostgresSQLDatabase(connection: connection).raw(query).first())
                let kit = try #require(try await connection.sql().raw(query).first())
                for row in [ours, kit] {
                    #expect(try row.decode(column: "t", as: String.self) == "token")
                    #expect(try row.decodeNil(column: "n") && row.decode(column: "n", as: String?.self) == nil)
                    #expect(try row.decode(column: "i4", as: Int.self) == 7)
                    #expect(try row.decode(column: "i8", as: Int64.self) == 9_000_000_000)
                    #expect(try row.decode(column: "b", as: Bool.self) && row.decode(column: "nb", as: Bool?.self) == nil)
                    #expect(try row.decode(column: "ni8", as: Int64?.self) == nil && !row.decodeNil(column: "i8"))
                    #expect(try row.decode(column: "d", as: Double.self) == 1.5)
                    #expect(try row.decode(column: "j", as: [String: Int].self) == ["a": 1])
                    #expect(try row.decode(column: "bs", as: String.self) == "bound")
                    #expect(try row.decode(column: "bi", as: Int.self) == 42 && row.decode(column: "bl", as: Int64.self) == -5)
                    #expect(try !row.decode(column: "bb", as: Bool.self) && row.decodeNil(column: "bn"))
                    #expect(try row.decode(column: "ba", as: [String].self) == ["x", "y"])
                    #expect(row.contains(column: "t") && !row.contains(column: "missing") && row.allColumns.count == 15)
                    #expect(throws: (any Error).self) { try row.decode(column: "missing", as: String.self) }
                    #expect(throws: (any Error).self) { try row.decode(column: "n", as: String.self) }
                }
            }
        } catch {
            try? await connector.close()
            throw error
        }
        try await connector.close()
    }
}
