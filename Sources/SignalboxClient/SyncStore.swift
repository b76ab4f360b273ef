import Foundation
import Synchronization

/// Where the sync state lives. `update` is a read-modify-write under a lock shared by every process that
/// opens the same store; a store that exists but cannot be read throws instead of starting over.
public protocol SyncStore: Sendable {
    func update<T: Sendable>(_ body: (inout SyncState) throws -> T) throws -> T
}

/// A store in memory, for tests and previews.
public final class MemorySyncStore: SyncStore {
    private let state: Mutex<SyncState>

    public init(installationId: String = UUID().uuidString.lowercased()) {
        state = Mutex(SyncState(installationId: installationId))
    }

    public func update<T: Sendable>(_ body: (inout SyncState) throws -> T) throws -> T {
        try state.withLock { try body(&$0) }
    }
}
