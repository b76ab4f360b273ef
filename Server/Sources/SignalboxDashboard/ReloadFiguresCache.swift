import Foundation
import SignalboxModel
import Synchronization

/// The app page's "Reloads in the last hour" figures, kept `ttl` per app: counting the hour's delivered pushes per
/// kind reads the app's delivery log for that hour, which a page reloaded every few seconds must not repeat.
final class ReloadFiguresCache: Sendable {
    /// How long figures are shown before they are counted again.
    static let ttl: TimeInterval = 30
    /// Apps held at once; a page of another app past this is counted without being kept.
    static let capacity = 256

    private let entries = Mutex<[String: Entry]>([:])

    private struct Entry {
        let at: Date
        let stats: [ReloadStats]
    }

    /// The app's figures computed at most `ttl` before `now`, else `load()`'s, kept for the next pages.
    func stats(appId: String, now: Date, load: () async throws -> [ReloadStats]) async throws -> [ReloadStats] {
        if let hit = entries.withLock({ $0[appId] }), hit.at <= now, now.timeIntervalSince(hit.at) < Self.ttl { return hit.stats }
        let stats = try await load()
        entries.withLock { entries in
            entries = entries.filter { $0.value.at <= now && now.timeIntervalSince($0.value.at) < Self.ttl }
            if entries.count < Self.capacity { entries[appId] = Entry(at: now, stats: stats) }
        }
        return stats
    }
}
