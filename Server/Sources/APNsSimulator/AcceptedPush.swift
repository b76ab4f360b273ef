import Foundation

/// A push the simulator accepted, as APNs would have delivered it.
public struct AcceptedPush: Sendable, Hashable, Codable {
    public var token: String
    public var topic: String
    public var pushType: String
    /// `apns-priority`, or `nil` when the header was absent.
    public var priority: Int?
    /// `apns-expiration` as sent, or `nil` when absent.
    public var expiration: String?
    public var collapseId: String?
    /// The `apns-id` echoed back, lower-cased.
    public var apnsId: String
    public var payload: String
    public var receivedAt: Date
    /// Which connection carried it (1, 2, … in accept order).
    public var connectionId: Int
    /// The `kid` of the provider token that signed it.
    public var keyId: String? = nil
    /// The first 16 hex digits of the provider token's SHA-256: pushes that carried the same token share it.
    public var providerTokenDigest: String? = nil
    /// 1, 2, … in accept order since start or the last reset, so a poller asks only for newer ones (`?after=`).
    public var sequence = 0
}

/// What the simulator has seen since it started or was last reset.
public struct SimulatorStats: Sendable, Hashable, Codable {
    /// Connections on which a client spoke HTTP/2 (TLS done); a connect that goes no further is not counted.
    public var connectionsAccepted = 0
    /// Every request answered, accepted or not.
    public var requests = 0
    /// Rejections by reason.
    public var rejected: [String: Int] = [:]
    /// The most streams open at once on one connection.
    public var maxConcurrentStreamsObserved = 0
    public var goAwaysSent = 0
}
