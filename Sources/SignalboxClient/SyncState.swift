import Foundation

/// Everything the SDK keeps in the app group, shared by the app and its extensions.
public struct SyncState: Sendable, Hashable, Codable {
    /// Chosen once, when the store is first created; never replaced while the store exists.
    public var installationId: String
    /// The revision the next new snapshot gets; revisions only grow, across every key.
    public var nextRevision: Int64 = 1
    public var entries: [String: SyncEntry] = [:]
    /// Back-off after a network error, 408, 429 or 5xx: nothing is sent before `retryAt`.
    public var retryAt: Date?
    public var failures: Int = 0
    /// The last refusal or failure, for the app to show or log.
    public var lastError: SyncError?
    /// Installations of a previous user on this device (a user switch without `signOut()`), deleted with that
    /// user's last device JWT when this process still has it. Optional so stores written before it still read.
    public var abandonedInstallationIds: [String]?
    /// Reload receipts not yet sent (`SyncQueue.recordReload`). Optional so stores written before it still read.
    public var pendingReloads: [PendingReload]?

    public init(installationId: String) { self.installationId = installationId }
}

extension SyncState {
    /// Continues under a new installation id: nothing is acknowledged there yet, and removals of the old one's
    /// registrations are moot. Token registrations stay (the tokens are this device's), and so does the installation
    /// snapshot when `keepingInstallation`; enumerator leases stay too, and lapse or renew as before.
    mutating func moveToNewInstallation(_ id: String, keepingInstallation: Bool) {
        installationId = id
        for (key, entry) in entries {
            let keep = entry.snapshot.holdsToken || entry.snapshot.isEnumerator && !entry.snapshot.isRemoval
                || keepingInstallation && key == "installation"
            guard keep else {
                entries[key] = nil
                continue
            }
            entries[key]?.acknowledgedRevision = nil
            entries[key]?.acknowledgedAt = nil
            entries[key]?.refusedRevision = nil
        }
        retryAt = nil
        failures = 0
        lastError = nil
    }
}
