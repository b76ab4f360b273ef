import NIOConcurrencyHelpers
import PostgresNIO

/// Which statements a PostgreSQL connection runs as named (prepared) statements. A text run once more on the same
/// connection is prepared there and then only bound and executed: PostgreSQL parses and analyzes it once, and plans
/// it once when its generic plan is as good as a custom one (docs/performance.md).
/// A text whose named run failed runs unnamed on that connection from then on: PostgresNIO keeps a failed
/// preparation for the connection's life. A name is never used twice on a connection for that reason.
final class PostgresNamedStatements: Sendable {
    /// The most statements one connection prepares: texts with a varying number of rows or values are each a text
    /// of their own, and PostgreSQL keeps a prepared statement until its connection closes.
    static let perConnection = 128

    /// Longer texts always run unnamed: they are bulk writes whose text changes with their rows.
    static let longestText = 16_384

    private struct Key: Hashable {
        let sql: String
        let types: [PostgresDataType]
    }

    private struct Connection {
        var named: [Key: String] = [:]
        /// Texts by their hash, not kept: two texts with one hash only cost a preparation early or a name missed.
        var seenOnce: Set<Int> = []
        var unnamed: Set<Int> = []
        var names = 0
    }

    private let connections = NIOLockedValueBox<[PostgresConnection.ID: Connection]>([:])

    /// The name to run `sql` with on `connection`, or nil to run it unnamed: its first run there, after a failed
    /// one, or once the connection has prepared its limit.
    func name(for sql: String, types: [PostgresDataType], on connection: PostgresConnection) -> String? {
        guard sql.utf8.count <= Self.longestText else { return nil }
        let key = Key(sql: sql, types: types)
        let (name, new) = connections.withLockedValue { connections -> (String?, Bool) in
            guard var state = connections[connection.id] else {
                connections[connection.id] = Connection(seenOnce: [key.hashValue])
                return (nil, true)
            }
            if let name = state.named[key] { return (name, false) }
            defer { connections[connection.id] = state }
            let hash = key.hashValue
            guard !state.unnamed.contains(hash), state.named.count < Self.perConnection else { return (nil, false) }
            guard state.seenOnce.remove(hash) != nil else {
                if state.seenOnce.count >= 8 * Self.perConnection { state.seenOnce.removeAll() }
                state.seenOnce.insert(hash)
                return (nil, false)
            }
            // Never a name used before on this connection: PostgresNIO remembers each name's preparation.
            let name = "signalbox_\(state.names)"
            state.names += 1
            state.named[key] = name
            return (name, false)
        }
        if new {
            connection.closeFuture.whenComplete { [connections] _ in
                connections.withLockedValue { _ = $0.removeValue(forKey: connection.id) }
            }
        }
        return name
    }

    /// `sql` failed as a named statement on `connection`. A stale one (`PostgresConnector.isStale`: the schema
    /// changed under a prepared `SELECT *`, or the statement is gone) is stale on every connection: all are prepared
    /// again under new names. Any other failure: the text runs unnamed on that connection from now on.
    func failed(_ sql: String, types: [PostgresDataType], on connection: PostgresConnection, stale: Bool) {
        let key = Key(sql: sql, types: types)
        connections.withLockedValue { connections in
            if stale {
                for id in connections.keys { connections[id]?.named.removeAll() }
            } else {
                connections[connection.id]?.named[key] = nil
                connections[connection.id]?.unnamed.insert(key.hashValue)
            }
        }
    }
}

/// PostgresNIO prepares only statements whose text, name and parameter types are static members of a type. This one
/// reads them from a task-local value that `PostgresSQLDatabase` sets around each execution.
struct NamedStatement: PostgresPreparedStatement {
    struct Text: Sendable {
        let name: String
        let sql: String
        let types: [PostgresDataType]
    }

    @TaskLocal static var text = Text(name: "", sql: "", types: [])

    static var name: String { text.name }
    static var sql: String { text.sql }
    static var bindingDataTypes: [PostgresDataType] { text.types }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
