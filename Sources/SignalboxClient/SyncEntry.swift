import Foundation

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
