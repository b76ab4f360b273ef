import Foundation
import SignalboxModel
import Synchronization

/// `RegistryStore` and `DeliveryStore` in memory, built on the model's rules (`Coalescing`, `ClaimOrder`,
/// `PushLife`, `TokenPruning`, `MinimumInterval`, `EventStatus`) with no SQL: the reference the
/// SQL backends are checked against, and a fast store for tests. Not shipped.
///
/// Like SQLite, its storage belongs to one process: `reopened()` is the next process on the same memory, whose
/// `releaseClaims` takes back every claim of the one before. Times are kept in Unix milliseconds, as the SQL
/// backends keep them, so what is read back is equal on every backend.
///
/// ```swift
/// let store = MemoryStore()
/// try await store.createApp(app)
/// ```
public final class MemoryStore: Sendable {
    /// The storage, shared by the processes `reopened()` makes.
    private let memory: Memory
    /// Who this process is in the outbox's claims.
    let owner: String
    /// How long a claim stays this process's.
    let claimLease: Duration

    /// An empty store.
    public convenience init(claimLease: Duration = .seconds(60)) {
        self.init(memory: Memory(), claimLease: claimLease)
    }

    private init(memory: Memory, claimLease: Duration) {
        self.memory = memory
        self.claimLease = claimLease
        owner = UUID().uuidString
    }

    /// The next process on the same memory: a new owner of claims, the same data.
    public func reopened() -> MemoryStore {
        MemoryStore(memory: memory, claimLease: claimLease)
    }

    /// Runs `body` on the storage, all at once: every port call is one transaction, as on the SQL backends.
    func withState<T>(_ body: (inout MemoryState) throws -> T) rethrows -> T {
        try memory.state.withLock { try body(&$0) }
    }
}

/// The one copy of the data that the processes on it share.
private final class Memory: Sendable {
    let state = Mutex(MemoryState())
}
