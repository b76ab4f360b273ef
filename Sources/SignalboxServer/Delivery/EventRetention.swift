import Foundation
import Logging
import ServiceLifecycle
import SignalboxStore

/// Deletes done and failed events once they are older than `retention` (default 7 days), every `interval`.
/// `now` is injected so a test can stand days later without waiting for them.
struct EventRetentionService: Service {
    let store: any DeliveryStore
    let retention: Duration
    let interval: Duration
    let now: @Sendable () -> Date
    let logger: Logger

    /// Events per delete statement: the storage connection is shared, so a large purge goes in short turns.
    static let batch = 1_000

    /// The creation time before which a finished event is deleted.
    static func cutoff(now: Date, retention: Duration) -> Date { now - retention.seconds }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await purge()
                    if removed > 0 { logger.info("events past their retention deleted", metadata: ["count": "\(removed)"]) }
                } catch {
                    logger.warning("event purge failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// Deletes every finished event past the retention. - Returns: how many.
    func purge() async throws -> Int {
        let cutoff = Self.cutoff(now: now(), retention: retention)
        var removed = 0
        while !Task.isCancelled {
            let count = try await store.purgeEvents(createdBefore: cutoff, limit: Self.batch)
            removed += count
            if count < Self.batch { break }
        }
        return removed
    }
}
