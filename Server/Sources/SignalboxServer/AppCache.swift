import Foundation
import SignalboxModel
import Synchronization

/// App records by id and by server-key hash, kept for a few seconds so that authenticating a request does
/// not cost a storage read. Only found apps are kept; rotating a key or deleting an app clears the cache here
/// at once (other instances sharing the database see it within `lifetime`).
package final class AppCache: Sendable {
    private let store: any RegistryStore
    private let lifetime: TimeInterval
    private let entries = Mutex<[String: (app: AppRecord, expires: Date)]>([:])

    init(store: any RegistryStore, lifetime: TimeInterval = 5) {
        self.store = store
        self.lifetime = lifetime
    }

    package func app(id: String) async throws -> AppRecord? {
        try await cached("id:" + id) { try await self.store.app(id: id) }
    }

    func app(serverKeyHash: String) async throws -> AppRecord? {
        try await cached("key:" + serverKeyHash) { try await self.store.app(serverKeyHash: serverKeyHash) }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    private func cached(_ key: String, load: @Sendable () async throws -> AppRecord?) async throws -> AppRecord? {
        let now = Date()
        if let hit = entries.withLock({ $0[key] }), hit.expires > now { return hit.app }
        guard let app = try await load() else { return nil }
        entries.withLock { $0[key] = (app, now.addingTimeInterval(lifetime)) }
        return app
    }
}
