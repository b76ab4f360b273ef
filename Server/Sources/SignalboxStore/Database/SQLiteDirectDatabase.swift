import Logging
import NIOCore
import SQLKit
import SQLiteKit
import SQLiteNIO

/// SQLKit over one SQLite connection, as SQLiteKit's `connection.sql()` is, but whose binds and rows convert the
/// common types (text, integers, booleans) without Codable. SQLiteKit converts every bind and every cell through a
/// dynamic cast to a protocol, which a fan-out pays for each row it plans, hands off and records
/// (docs/performance.md). Other types take SQLiteKit's encoder and decoder, with the same results.
struct SQLiteDirectDatabase: SQLDatabase {
    let connection: SQLiteConnection
    private let encoder = SQLiteDataEncoder()

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    var logger: Logger { connection.logger }
    var eventLoop: any EventLoop { connection.eventLoop }
    var dialect: any SQLDialect { SQLiteDialect() }
    var version: (any SQLDatabaseReportedVersion)? { connection.sql().version }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = serialize(query)
        try await connection.query(sql, try binds.map(sqliteData)) { onRow(SQLiteCellsRow(row: $0)) }
    }

    /// A bind as SQLite data: casts to concrete types, which are cheap, before SQLiteKit's encoder.
    private func sqliteData(_ bind: any Encodable & Sendable) throws -> SQLiteData {
        switch bind {
        case let value as String: .text(value)
        case let value as Int: .integer(SQLiteInt64(value))
        case let value as Int64: .integer(SQLiteInt64(value))
        case let value as Bool: .integer(value ? 1 : 0)
        default: try encoder.encode(bind)
        }
    }
}

/// A row of `SQLiteDirectDatabase`: the conversions of SQLiteNIO's `SQLiteDataConvertible`, chosen by comparing
/// types rather than by casting to the protocol.
private struct SQLiteCellsRow: SQLRow {
    let row: SQLiteRow

    var allColumns: [String] { row.columns.map(\.name) }

    func contains(column: String) -> Bool { row.column(column) != nil }

    func decodeNil(column: String) throws -> Bool { (row.column(column) ?? .null) == .null }

    func decode<T: Decodable>(column: String, as type: T.Type) throws -> T {
        guard let data = row.column(column) else {
            throw DecodingError.keyNotFound(
                SomeCodingKey(stringValue: column), .init(codingPath: [], debugDescription: "no column \(column) in the row")
            )
        }
        if T.self == String.self { return try Self.value(String(sqliteData: data), data, column) as! T }
        if T.self == Int.self { return try Self.value(Int(sqliteData: data), data, column) as! T }
        if T.self == Int64.self { return try Self.value(Int64(sqliteData: data), data, column) as! T }
        if T.self == Bool.self { return try Self.value(Bool(sqliteData: data), data, column) as! T }
        let null = data == .null
        if T.self == String?.self { return try (null ? nil : Self.value(String(sqliteData: data), data, column)) as String? as! T }
        if T.self == Int64?.self { return try (null ? nil : Self.value(Int64(sqliteData: data), data, column)) as Int64? as! T }
        if T.self == Int?.self { return try (null ? nil : Self.value(Int(sqliteData: data), data, column)) as Int? as! T }
        return try SQLiteDataDecoder().decode(T.self, from: data)
    }

    private static func value<V>(_ value: V?, _ data: SQLiteData, _ column: String) throws -> V {
        guard let value else {
            throw DecodingError.typeMismatch(
                V.self, .init(codingPath: [SomeCodingKey(stringValue: column)], debugDescription: "could not convert \(column)'s \(data) to \(V.self)")
            )
        }
        return value
    }
}
