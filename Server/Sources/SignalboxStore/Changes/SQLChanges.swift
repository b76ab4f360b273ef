import SQLKit
import SignalboxModel

/// `ChangeNotifier` over PostgreSQL's LISTEN: one pooled connection waits for the changes other instances announce
/// (`SQLBackend.announce`) when their transactions commit.
struct SQLChanges: ChangeNotifier, SQLStore {
    let database: SQLDatabaseClient

    func listenForChanges(_ body: @escaping @Sendable (StorageChange) -> Void) async throws {
        try await database.connector.listen(channel: SQLBackend.changesChannel) { payload in
            if let change = StorageChange(rawValue: payload) { body(change) }
        }
    }
}
