import Foundation
import SignalboxModel

/// Deletes done and failed events once they are older than `retention` (default 7 days); run every
/// `eventPurgeInterval` by a `PeriodicWork`. `now` is injected so a test can stand days later without waiting.
public struct EventRetention: Sendable {
    let store: any DeliveryStore
    let retention: Duration
    let now: @Sendable () -> Date

    public init(store: any DeliveryStore, retention: Duration, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.retention = retention
        self.now = now
    }

    /// Events per delete statement: the storage connection is shared, so a large purge goes in short turns.
    static let batch = 1_000

    /// Deletes every finished event past the retention. - Returns: how many.
    public func purge() async throws -> Int {
        let cutoff = now() - retention.seconds
        var removed = 0
        while !Task.isCancelled {
            let count = try await store.purgeEvents(createdBefore: cutoff, limit: Self.batch)
            removed += count
            if count < Self.batch { break }
        }
        return removed
    }
}
