import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit

/// SQLKit over one PostgreSQL connection, as PostgresKit's `connection.sql()` is, but whose rows decode the common
/// cell types (text, integers, booleans) straight through PostgresNIO. PostgresKit's row builds a coding path and
/// casts dynamically for every cell; on a fan-out's pages that was the largest piece of the store's own CPU
/// (docs/performance.md). Anything else, and a bind of a type PostgresNIO cannot encode, goes through PostgresKit.
struct PostgresSQLDatabase: SQLDatabase {
    let connection: PostgresConnection

    var logger: Logger { connection.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var dialect: any SQLDialect { PostgresDialect() }
    var queryLogLevel: Logger.Level? { nil }

    private var fallback: any SQLDatabase { connection.sql(queryLogLevel: nil) }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = serialize(query)
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            if (bind as Any?) == nil {
                bindings.appendNull()
            } else if let value = bind as? any PostgresThrowingDynamicTypeEncodable {
                try bindings.append(value)
            } else {
                return try await fallback.execute(sql: query, onRow)
            }
        }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
        for try await row in rows { onRow(PostgresCellsRow(row: row, cells: row.makeRandomAccess())) }
    }
}

/// A row of `PostgresSQLDatabase`.
private struct PostgresCellsRow: SQLRow {
    let row: PostgresRow
    let cells: PostgresRandomAccessRow

    var allColumns: [String] { cells.map(\.columnName) }

    func contains(column: String) -> Bool { cells.contains(column) }

    func decodeNil(column: String) throws -> Bool { !cells.contains(column) || cells[column].bytes == nil }

    func decode<T: Decodable>(column: String, as type: T.Type) throws -> T {
        guard cells.contains(column) else { return try row.sql().decode(column: column, as: type) }
        let cell = cells[column]
        // Metadata comparisons, not casts: the types the store reads, decoded as PostgresKit's fast path would.
        if T.self == String.self { return try cell.decode(String.self) as! T }
        if T.self == Int.self { return try cell.decode(Int.self) as! T }
        if T.self == Int64.self { return try cell.decode(Int64.self) as! T }
        if T.self == Bool.self { return try cell.decode(Bool.self) as! T }
        if T.self == String?.self { return try cell.decode(String?.self) as! T }
        if T.self == Int64?.self { return try cell.decode(Int64?.self) as! T }
        if T.self == Bool?.self { return try cell.decode(Bool?.self) as! T }
        return try row.sql().decode(column: column, as: type)
    }
}
