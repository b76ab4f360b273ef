import Foundation

/// What one `sync()` did.
public struct SyncReport: Sendable, Hashable {
    /// Keys whose snapshot the server acknowledged, in order.
    public var acknowledged: [String] = []
    /// Keys refused for good (400, 403, 404, 413) and failures that may pass.
    public var errors: [SyncError] = []
    /// Reload receipts the server took.
    public var reloadsSent = 0
    /// When something will be due next (a retry, a refresh), if anything.
    public var nextWake: Date?
}
