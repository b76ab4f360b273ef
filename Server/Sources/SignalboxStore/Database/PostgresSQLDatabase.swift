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
    /// Nil: every statement unnamed.
    var namedStatements: PostgresNamedStatements? = nil

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
        var types: [PostgresDataType] = []
        types.reserveCapacity(binds.count)
        for bind in binds {
            if (bind as Any?) == nil {
                bindings.appendNull()
                types.append(.null)
            } else if let value = bind as? any PostgresThrowingDynamicTypeEncodable {
                try bindings.append(value)
                types.append(value.psqlType)
            } else {
                return try await fallback.execute(sql: query, onRow)
            }
        }
        if let namedStatements, let name = namedStatements.name(for: sql, types: types, on: connection) {
            do {
                try await NamedStatement.$text.withValue(.init(name: name, sql: sql, types: types)) {
                    try await deliver(try await connection.execute(NamedStatement(bindings: bindings), logger: logger), onRow)
                }
            } catch {
                namedStatements.failed(sql, types: types, on: connection, stale: (error as? PSQLError).map(PostgresConnector.isStale) ?? false)
                throw error
            }
        } else {
            try await deliver(try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger), onRow)
        }
    }

    private func deliver<Rows: AsyncSequence>(_ rows: Rows, _ onRow: @Sendable (any SQLRow) -> Void) async throws where Rows.Element == PostgresRow {
        var columns: [String]?
        for try await row in rows {
            if columns == nil { columns = row.map(\.columnName) }
            onRow(PostgresCellsRow(row: row, columns: columns ?? []))
        }
    }
}

/// A row of `PostgresSQLDatabase`. Its statement's column names are read once, from its first row, and a cell is read
/// in place at its position among them: no array of cells per row, no hashing of a name per lookup.
private struct PostgresCellsRow: SQLRow {
    let row: PostgresRow
    let columns: [String]

    var allColumns: [String] { columns }

    func contains(column: String) -> Bool { columns.contains(column) }

    func decodeNil(column: String) throws -> Bool { cell(column)?.bytes == nil }

    func decode<T: Decodable>(column: String, as type: T.Type) throws -> T {
        guard let cell = cell(column) else { return try row.sql().decode(column: column, as: type) }
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

    /// The last cell of that name, as PostgresNIO's lookup by name finds it; nil when the statement has none.
    private func cell(_ column: String) -> PostgresCell? {
        guard let position = columns.lastIndex(of: column) else { return nil }
        return row[row.index(row.startIndex, offsetBy: position)]
    }
}
