import Logging
import SQLKit
import SQLiteKit
@testable import SignalboxStore
import Testing

/// The store's SQLite binds and rows (`SQLiteDirectDatabase`) convert as SQLiteKit's do: the types it converts
/// itself, the ones it leaves to SQLiteKit, NULLs, SQLite's loose typing, and a missing column.
@Suite struct SQLiteRowDecodingTests {
    @Test func cellsDecodeAsSQLiteKitDecodesThem() async throws {
        let connection = try await SQLiteConnection.open(storage: .memory, logger: Logger(label: "test"))
        do {
            let query: SQLQueryString = """
                SELECT 'token' AS t, NULL AS n, 7 AS i, 9000000000 AS l, 1 AS b, NULL AS nb, 1.5 AS d, '{"a":1}' AS j,
                    42 AS it, '1' AS tb, 'x' AS bad,
                    \(bind: "bound") AS bs, \(bind: 42) AS bi, \(bind: Int64(-5)) AS bl, \(bind: false) AS bb,
                    \(bind: String?.none) AS bn, \(bind: ["x", "y"]) AS ba, \(bind: Int?.some(3)) AS bo, \(bind: 2.25) AS bd
                """
            let ours = try #require(try await SQLiteDirectDatabase(connection: connection).raw(query).first())
            let kit = try #require(try await connection.sql().raw(query).first())
            for row in [ours, kit] {
                #expect(try row.decode(column: "t", as: String.self) == "token")
                #expect(try row.decodeNil(column: "n") && row.decode(column: "n", as: String?.self) == nil)
                #expect(try row.decode(column: "i", as: Int.self) == 7 && row.decode(column: "i", as: Int?.self) == 7)
                #expect(try row.decode(column: "l", as: Int64.self) == 9_000_000_000 && row.decode(column: "l", as: Int64?.self) == 9_000_000_000)
                #expect(try row.decode(column: "b", as: Bool.self) && row.decode(column: "nb", as: Bool?.self) == nil)
                #expect(try row.decode(column: "n", as: Int64?.self) == nil && row.decode(column: "n", as: Int?.self) == nil)
                #expect(try row.decode(column: "d", as: Double.self) == 1.5)
                #expect(try row.decode(column: "j", as: [String: Int].self) == ["a": 1])
                // SQLite's loose typing, as SQLiteNIO converts it: an integer read as text, text "1" as a boolean.
                #expect(try row.decode(column: "it", as: String.self) == "42" && row.decode(column: "tb", as: Bool.self))
                #expect(throws: (any Error).self) { try row.decode(column: "bad", as: Int.self) }
                #expect(throws: (any Error).self) { try row.decode(column: "bad", as: Int64?.self) }
                #expect(try row.decode(column: "bs", as: String.self) == "bound")
                #expect(try row.decode(column: "bi", as: Int.self) == 42 && row.decode(column: "bl", as: Int64.self) == -5)
                #expect(try !row.decode(column: "bb", as: Bool.self) && row.decodeNil(column: "bn"))
                #expect(try row.decode(column: "ba", as: [String].self) == ["x", "y"])
                #expect(try row.decode(column: "bo", as: Int.self) == 3 && row.decode(column: "bd", as: Double.self) == 2.25)
                #expect(row.contains(column: "t") && !row.contains(column: "missing") && row.allColumns.count == 19)
                #expect(throws: (any Error).self) { try row.decode(column: "missing", as: String.self) }
                #expect(throws: (any Error).self) { try row.decode(column: "n", as: String.self) }
            }
        } catch {
            try? await connection.close().get()
            throw error
        }
        try await connection.close().get()
    }
}
