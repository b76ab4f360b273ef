import Foundation
import SignalboxMemoryStore
import SignalboxModel
import SignalboxStore
import Testing

/// The ports a conformance suite drives, from any backend: the memory store implements these two.
package struct PortStores: Sendable {
    package let registry: any RegistryStore
    package let delivery: any DeliveryStore

    package init(_ stores: Stores) {
        registry = stores.registry
        delivery = stores.delivery
    }

    package init(_ memory: MemoryStore) {
        let ports = memory.ports
        registry = ports.registry
        delivery = ports.delivery
    }
}

/// The backends the port conformance suites run on: the memory store (the model's rules, no SQL) and every SQL
/// backend `Backend.available` lists. Tests of what only SQL has (files, migrations, instances sharing a database)
/// stay on `Backend`.
package enum StoreBackend: Hashable, Sendable, CustomTestStringConvertible {
    case memory
    case sql(Backend)

    package static var available: [StoreBackend] { [.memory] + Backend.available.map(StoreBackend.sql) }

    package var testDescription: String {
        switch self {
        case .memory: "memory"
        case .sql(let backend): backend.rawValue
        }
    }

    /// Whether one process owns the storage, so that the next process takes back every claim of the one before at
    /// once (memory and SQLite); on PostgreSQL only an ended lease says a claim's owner is gone.
    package var ownedByOneProcess: Bool { self != .sql(.postgres) }

    /// Runs `body` with a fresh, empty store and closes it.
    package func withStore(claimLease: Duration = .seconds(60), _ body: (PortStores) async throws -> Void) async throws {
        switch self {
        case .memory: try await body(PortStores(MemoryStore(claimLease: claimLease)))
        case .sql(let backend): try await backend.withStore(claimLease: claimLease) { try await body(PortStores($0)) }
        }
    }

    /// Runs `body` with `count` stores on one fresh storage, as `count` processes would have them (for memory,
    /// `MemoryStore.reopened()`), and closes them.
    package func withStores(_ count: Int, claimLease: Duration = .seconds(60), _ body: ([PortStores]) async throws -> Void) async throws {
        switch self {
        case .memory:
            let first = MemoryStore(claimLease: claimLease)
            try await body(([first] + (1..<max(1, count)).map { _ in first.reopened() }).map(PortStores.init))
        case .sql(let backend): try await backend.withStores(count, claimLease: claimLease) { try await body($0.map(PortStores.init)) }
        }
    }
}
