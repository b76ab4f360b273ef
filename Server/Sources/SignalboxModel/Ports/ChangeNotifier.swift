/// Work one instance queued that the others on the same storage can share: they are woken at once instead of at
/// their next poll.
public enum StorageChange: String, Sendable {
    /// An event was accepted: its fan-out can be joined.
    case eventAccepted = "event"
    /// Pushes were stored pending: they can be claimed.
    case pushesQueued = "outbox"
}

/// Tells the other instances on one database about `StorageChange`s (PostgreSQL: LISTEN/NOTIFY). The store
/// announces its own changes when their transaction commits.
public protocol ChangeNotifier: Sendable {
    /// Calls `body` with each change any instance announces, until cancelled or the connection fails (it
    /// throws). Returns at once where no other instance shares the storage.
    func listenForChanges(_ body: @escaping @Sendable (StorageChange) -> Void) async throws
}
