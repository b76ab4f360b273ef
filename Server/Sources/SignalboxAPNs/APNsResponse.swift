import Foundation

/// What APNs answered to one push.
public struct APNsResponse: Sendable, Hashable {
    /// The HTTP status (200 when accepted).
    public var status: Int
    /// The `apns-id` APNs echoed or generated.
    public var apnsId: UUID?
    /// The `apns-unique-id` (sandbox only), the key to Apple's delivery log.
    public var uniqueId: String?
    /// The error body's `reason`, when not accepted.
    public var reason: APNsReason?
    /// The error body's `timestamp` (410 only): when APNs learned the token was no longer valid.
    public var timestamp: Date?

    public init(status: Int, apnsId: UUID? = nil, uniqueId: String? = nil, reason: APNsReason? = nil, timestamp: Date? = nil) {
        self.status = status
        self.apnsId = apnsId
        self.uniqueId = uniqueId
        self.reason = reason
        self.timestamp = timestamp
    }

    /// Builds a response from a status, headers and the JSON error body
    /// `{"reason": "...", "timestamp": <ms>}`; an unreadable body leaves reason and timestamp empty.
    public init(status: Int, apnsId: String?, uniqueId: String?, body: [UInt8]) {
        self.init(status: status, apnsId: apnsId.flatMap(UUID.init(uuidString:)), uniqueId: uniqueId)
        guard !body.isEmpty, let error = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) else { return }
        reason = error.reason.map(APNsReason.init(rawValue:))
        timestamp = error.timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// The JSON body APNs sends with an error status.
    public struct ErrorBody: Codable, Sendable {
        public var reason: String?
        /// Milliseconds since the epoch (410 only).
        public var timestamp: Int64?

        public init(reason: String?, timestamp: Int64? = nil) {
            self.reason = reason
            self.timestamp = timestamp
        }
    }
}
