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

    public init(installationId: String) { self.installationId = installationId }
}

/// One registration key: its latest desired snapshot and what the server has acknowledged.
public struct SyncEntry: Sendable, Hashable, Codable {
    public var snapshot: RegistrationSnapshot
    /// The revision of `snapshot`, sent with it.
    public var revision: Int64
    /// The last revision the server answered for, and when.
    public var acknowledgedRevision: Int64?
    public var acknowledgedAt: Date?
    /// A revision the server refused for good (400, 403, 413): not sent again until the snapshot changes.
    public var refusedRevision: Int64?
    /// Another process is sending this revision until then; the others leave it alone.
    public var sendingUntil: Date?

    var isAcknowledged: Bool { acknowledgedRevision == revision }
}

/// Why a registration did not reach the server.
public struct SyncError: Sendable, Hashable, Codable, CustomStringConvertible {
    public var key: String
    /// The HTTP status, or `nil` for a network failure.
    public var status: Int?
    public var code: String
    public var message: String
    public var at: Date

    public var description: String { "\(key): \(status.map(String.init) ?? "network") \(code): \(message)" }
}
