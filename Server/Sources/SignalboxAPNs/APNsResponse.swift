import Foundation

/// What APNs answered to one push.
public struct APNsResponse: Sendable, Hashable {
    /// The HTTP status (200 when accepted).
    public var status: Int
    /// The `apns-id` APNs echoed or generated, as lower-case text (what logs and answers show).
    public var apnsIdText: String?
    /// The `apns-id` APNs echoed or generated.
    public var apnsId: UUID? {
        get { apnsIdText.flatMap(UUID.init(uuidString:)) }
        set { apnsIdText = newValue?.uuidString.lowercased() }
    }
    /// The `apns-unique-id` (sandbox only), the key to Apple's delivery log.
    public var uniqueId: String?
    /// The error body's `reason`, when not accepted.
    public var reason: APNsReason?
    /// The error body's `timestamp` (410 only): when APNs learned the token was no longer valid.
    public var timestamp: Date?

    public init(status: Int, apnsId: UUID? = nil, uniqueId: String? = nil, reason: APNsReason? = nil, timestamp: Date? = nil) {
        self.status = status
        self.apnsIdText = apnsId?.uuidString.lowercased()
        self.uniqueId = uniqueId
        self.reason = reason
        self.timestamp = timestamp
    }

    /// Builds a response from a status, headers and the JSON error body
    /// `{"reason": "...", "timestamp": <ms>}`; an unreadable body leaves reason and timestamp empty.
    public init(status: Int, apnsId: String?, uniqueId: String?, body: [UInt8]) {
        self.init(status: status, uniqueId: uniqueId)
        apnsIdText = apnsId.flatMap(Self.canonicalUUID)
        guard !body.isEmpty, let error = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) else { return }
        reason = error.reason.map(APNsReason.init(rawValue:))
        timestamp = error.timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// `text` as a lower-case UUID (8-4-4-4-12 hex digits), or `nil` when it is none. Read by hand: Foundation's
    /// `UUID(uuidString:)` scans with `sscanf` and `uuidString` formats with `snprintf`, once per answer each.
    static func canonicalUUID(_ text: String) -> String? {
        guard text.utf8.count == 36 else { return nil }
        var hasUpperCase = false
        for (index, byte) in text.utf8.enumerated() {
            let isDash = index == 8 || index == 13 || index == 18 || index == 23
            switch byte {
            case UInt8(ascii: "-") where isDash: continue
            case _ where isDash: return nil
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "F"): hasUpperCase = true
            default: return nil
            }
        }
        return hasUpperCase ? text.lowercased() : text
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
