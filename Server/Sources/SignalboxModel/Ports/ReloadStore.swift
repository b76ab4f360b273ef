import Foundation

/// Reload receipts: which delivered push a device's reload answered, and the per-kind figures of the dashboard.
public protocol ReloadStore: Sendable {
    /// Matches each receipt to the latest push of its type delivered to the installation (for controls, to a token
    /// registered with the receipt's kind) at most `window` before it and not yet answered for that kind, and
    /// records it, matched or not, keeping the installation's newest `keep` receipts (the oldest beyond are
    /// dropped). Matching reads the delivery log (only the delivered lines of the batch's windows): with the log
    /// off, nothing matches.
    func recordReloads(appId: String, installationId: String, _ receipts: [ReloadReceipt], window: TimeInterval, keep: Int, now: Date)
        async throws -> RecordedReloads
    /// Per push type and kind, the receipts recorded and pushes delivered at or after `since`.
    func reloadStats(appId: String, since: Date) async throws -> [ReloadStats]
}
