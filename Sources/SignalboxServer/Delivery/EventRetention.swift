import Foundation
import SignalboxStore

/// Deletes done and failed events once they are older than `retention` (default 7 days); run every
/// `eventPurgeInterval` by a `PeriodicCleanup`. `now` is injected so a test can stand days later without waiting.
struct EventRetention: Sendable {
    let store: any DeliveryStore
    let retention: Duration
    let now: @Sendable () -> Date

    /// Events per delete statement: the storage connection is shared, so a large purge goes in short turns.
    static let batch = 1_000

    /// Deletes every finished event past the retention. - Returns: how many.
    func purge() async throws -> Int {
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
